package musicbrainz

import json "github.com/goccy/go-json"

// record is one line of a MusicBrainz JSON dump: a WS/2 entity document.
// It is the union of the fields of every entity type the reader uses;
// fields a type does not have stay empty, and fields not listed here are
// ignored (tags, track positions, release events, ...).
type record struct {
	ID             string `json:"id"`
	Name           string `json:"name"`
	Title          string `json:"title"`
	SortName       string `json:"sort-name"`
	Disambiguation string `json:"disambiguation"`
	Description    string `json:"description"`
	Type           string `json:"type"`

	Gender       string         `json:"gender"`
	Country      string         `json:"country"`
	LifeSpan     *lifeSpan      `json:"life-span"`
	Area         *entityRef     `json:"area"`
	BeginArea    *entityRef     `json:"begin-area"`
	EndArea      *entityRef     `json:"end-area"`
	ISNIs        []string       `json:"isnis"`
	IPIs         []string       `json:"ipis"`
	Aliases      []alias        `json:"aliases"`
	Genres       []entityRef    `json:"genres"`
	Rating       *rating        `json:"rating"`
	ArtistCredit []artistCredit `json:"artist-credit"`

	// release group, release, recording, work
	PrimaryType      string      `json:"primary-type"`
	SecondaryTypes   []string    `json:"secondary-types"`
	FirstReleaseDate string      `json:"first-release-date"`
	Status           string      `json:"status"`
	Packaging        string      `json:"packaging"`
	Date             string      `json:"date"`
	Barcode          string      `json:"barcode"`
	ReleaseGroup     *entityRef  `json:"release-group"`
	LabelInfo        []labelInfo `json:"label-info"`
	Media            []medium    `json:"media"`
	Length           json.Number `json:"length"`
	Video            bool        `json:"video"`
	ISRCs            []string    `json:"isrcs"`
	ISWCs            []string    `json:"iswcs"`
	Language         string      `json:"language"`
	Languages        []string    `json:"languages"`

	// label, place, area, event
	LabelCode   json.Number  `json:"label-code"`
	Address     string       `json:"address"`
	Coordinates *coordinates `json:"coordinates"`
	ISO31661    []string     `json:"iso-3166-1-codes"`
	ISO31662    []string     `json:"iso-3166-2-codes"`
	Time        string       `json:"time"`
	Cancelled   bool         `json:"cancelled"`

	Relations []relation `json:"relations"`
}

// entityRef is an entity embedded in another document.
type entityRef struct {
	ID             string `json:"id"`
	Name           string `json:"name"`
	Title          string `json:"title"`
	Disambiguation string `json:"disambiguation"`
}

// label returns the name, or the title for release groups, releases,
// recordings and works.
func (e *entityRef) label() string {
	if e.Name != "" {
		return e.Name
	}
	return e.Title
}

type lifeSpan struct {
	Begin string `json:"begin"`
	End   string `json:"end"`
	Ended bool   `json:"ended"`
}

type alias struct {
	Name     string `json:"name"`
	SortName string `json:"sort-name"`
	Locale   string `json:"locale"`
}

type rating struct {
	Value json.Number `json:"value"`
	Votes int64       `json:"votes-count"`
}

type artistCredit struct {
	Name   string    `json:"name"`
	Artist entityRef `json:"artist"`
}

type labelInfo struct {
	CatalogNumber string     `json:"catalog-number"`
	Label         *entityRef `json:"label"`
}

type medium struct {
	Format string  `json:"format"`
	Tracks []track `json:"tracks"`
}

type track struct {
	Recording *entityRef `json:"recording"`
}

type coordinates struct {
	Latitude  json.Number `json:"latitude"`
	Longitude json.Number `json:"longitude"`
}

// relation is one element of "relations": a relationship seen from the
// document's entity, with the other end embedded under the key named by
// target-type.
type relation struct {
	Type            string            `json:"type"`
	TypeID          string            `json:"type-id"`
	Direction       string            `json:"direction"`
	TargetType      string            `json:"target-type"`
	Attributes      []string          `json:"attributes"`
	AttributeValues map[string]string `json:"attribute-values"`
	Begin           string            `json:"begin"`
	End             string            `json:"end"`
	Ended           bool              `json:"ended"`
	SourceCredit    string            `json:"source-credit"`
	TargetCredit    string            `json:"target-credit"`
	OrderingKey     json.Number       `json:"ordering-key"`
	Artist          *entityRef        `json:"artist"`
	ReleaseGroup    *entityRef        `json:"release_group"`
	Release         *entityRef        `json:"release"`
	Recording       *entityRef        `json:"recording"`
	Work            *entityRef        `json:"work"`
	Label           *entityRef        `json:"label"`
	Place           *entityRef        `json:"place"`
	Area            *entityRef        `json:"area"`
	Event           *entityRef        `json:"event"`
	Series          *entityRef        `json:"series"`
	Instrument      *entityRef        `json:"instrument"`
	Genre           *entityRef        `json:"genre"`
	URL             *urlRef           `json:"url"`
}

type urlRef struct {
	ID       string `json:"id"`
	Resource string `json:"resource"`
}

// target returns the embedded entity named by target-type ("release_group"
// for release groups), or nil.
func (r *relation) target() *entityRef {
	switch r.TargetType {
	case "artist":
		return r.Artist
	case "release_group":
		return r.ReleaseGroup
	case "release":
		return r.Release
	case "recording":
		return r.Recording
	case "work":
		return r.Work
	case "label":
		return r.Label
	case "place":
		return r.Place
	case "area":
		return r.Area
	case "event":
		return r.Event
	case "series":
		return r.Series
	case "instrument":
		return r.Instrument
	case "genre":
		return r.Genre
	}
	return nil
}
