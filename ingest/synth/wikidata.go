package synth

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Wikidata-JSON-dump-like input (WriteWikidata).
//
// The output has the shape of latest-all.json: "[", one entity per line
// ending in ",", the last without, then "]". Every entity has the members
// and nesting of the real dump — labels, descriptions and aliases keyed by
// language, claims keyed by property with full statements (mainsnak with
// datavalue and datatype, statement id, rank, qualifiers with
// qualifiers-order, references with hash, snaks and snaks-order),
// sitelinks with badges, and the page metadata (pageid, ns, title,
// lastrevid, modified) — so a reader spends its time where it would on the
// real dump, including on the members it skips.
//
// # Calibration
//
// Sizes follow one latent "prominence" z ~ N(0,1) per item, so big items
// are big in every respect, as in Wikidata:
//
//   - statements = 8·e^(1.12z), 1..5000: median 8, mean ≈ 15. Published
//     figures: 12.9 billion RDF triples over 97.3 M items in the 2021-06-14
//     snapshot (User:AKhatun/Wikidata_Basic_Analysis on wikitech), i.e.
//     about 130 triples per item, of which labels, descriptions, aliases and
//     references are 26%; at ~6 triples per statement (wdt, p, ps, value
//     and reference nodes) that is ≈ 15 statements per item.
//   - labels = 1 + e^(1.8z), at most 300 (mean ≈ 6; published: 500 M label
//     triples / 97 M items ≈ 5.1), English in 85%; descriptions: 35% of
//     items carry bot-written descriptions in 20-60 languages (as scholarly
//     articles do), the rest e^(1.2z) (mean ≈ 20; published: 2.47 G
//     description triples ≈ 25 per item); aliases e^(1.5z-1) (mean ≈ 1.1;
//     published: 103 M altLabel triples ≈ 1.05 per item).
//   - sitelinks: none below z = 0.7 (76% of items have none), then
//     2·e^(2.2(z-0.7)) up to 340.
//   - qualifiers on 12% of statements (35% for z > 1.5), 1.3 snaks each;
//     references on 50% of statements (published: 90 M distinct references
//     in 2021), 1.05 per referenced statement, 2 snaks each.
//   - datatypes by share of statements: wikibase-item 45%, external-id
//     22%, time 8%, string 7%, quantity 7%, monolingualtext 4%, url 3%,
//     commonsMedia 2%, globe-coordinate 2% (the 49 real entities in
//     data/: item 46%, external-id 19%, quantity 16%, monolingualtext
//     8%, string 5%; time is rarer there than in the whole dump, where
//     every person and publication has dates).
//   - mean entity size ≈ 10-14 KB: the July 2022 dump was about 1.4 TB
//     uncompressed for ~100 M entities (github.com/TorbenRahbekKoch/wikidata,
//     "Wikidata Json Format.md"), 14 KB per entity.
//
// The items with z > 2.1 (about 1.8%) look like the 49 real entities in
// data/wikidata-sample-entities.json.gz (countries and cities: 33-298
// labels, median 182; 4-398 statements, median 49; 18-339 sitelinks;
// 35% of statements qualified, 34% referenced; 864 bytes per statement).
// Language and site codes are those of the sample in order of frequency.
// Object items follow a Zipf law (hubs such as "human" or "scholarly
// article" receive a large share of the edges).

// WikidataConfig sizes a Wikidata-dump-like file.
type WikidataConfig struct {
	// Entities is the number of entities written, property entities
	// included.
	Entities int64
	// Properties is the number of property entities written first
	// (default 2000, at most a tenth of Entities).
	Properties int
	// Seed makes the output reproducible.
	Seed uint64
}

// WikidataStats describe what WriteWikidata wrote.
type WikidataStats struct {
	Entities     int64 `json:"entities"`
	Properties   int64 `json:"properties"`
	Statements   int64 `json:"statements"`
	Qualifiers   int64 `json:"qualifier_snaks"`
	References   int64 `json:"references"`
	Labels       int64 `json:"labels"`
	Descriptions int64 `json:"descriptions"`
	Aliases      int64 `json:"aliases"`
	Sitelinks    int64 `json:"sitelinks"`
	Bytes        int64 `json:"bytes"`
}

// Datatypes with their share of statements.
var wdDatatypes = []struct {
	name   string
	weight float64
}{
	{"wikibase-item", 45}, {"external-id", 22}, {"time", 8}, {"string", 7}, {"quantity", 7},
	{"monolingualtext", 4}, {"url", 3}, {"commonsMedia", 2}, {"globe-coordinate", 2},
}

// Language codes and sites of the real sample, most frequent first.
var (
	wdLanguages = strings.Fields(`en fr it pl nb de ru ja es nl ca cs fi he hu oc sco sv ta uk pt-br da el ko
pt ro sk tr vi zh en-gb en-ca ar eu fa hr hy id ne eo zh-hant be bg gl lv sl sr zh-hans mk bs et is ka
lt nn sh la ms th ga be-tarask az br af cy hi ur yue bn sq tl lb mr kk ml nds tt yi an ckb io jv pnb war
pa gsw nan ast my qu scn te vec uz lmo mn sw zh-cn ia kn ku tg de-ch cv gd zh-hk zh-tw sgs pms bxr arz
fo fy hsb ht li nah ba bar vep vo zh-sg si cdo ext szl nds-nl zh-mo ceb rue ang dsb hak ilo so vls yo
am zh-my gn ce sc or diq gv os wa wuu sah gu ln nrm su hif vro co ky mhr nap ps lad lij arc mg new wo
kw ug xmf rup frr eml azb bcl frp sr-el csb kv jbo roa-tara fur sa se bo xal lzh lez gan ie krc ksh mzn
pap chr ee haw rw tk sr-ec jam olo pam mt lo stq myv bho gag kl nov rm sn sm kab kaa km tpi zea min mi
pih tet zu pcd ay crh-latn koi mdf na udm mai mwl cu dv kbd kg pnt got ab ace pdc av sd mrj ss gom bpy
pag as nso za tokipona nv srn om bm ady ig de-at iu ak bjn ltg tum cbk-zam lbe bi ha tw xh tyv pfl ff
ty lrc st bug sma ts dz rmy bgn map-bms brh pi ny lg fj bbc-latn aeb-arab glk liv rn ki chy kk-cyrl sg
tg-cyrl tcy ti`)
	wdSites = strings.Fields(`enwiki dewiki jawiki nlwiki plwiki svwiki frwiki eswiki ruwiki ptwiki
zhwiki hewiki trwiki viwiki nowiki kowiki cswiki dawiki itwiki fawiki fiwiki rowiki simplewiki hywiki
arwiki ukwiki cawiki srwiki idwiki bgwiki bewiki elwiki eowiki huwiki glwiki hrwiki lvwiki shwiki
etwiki ltwiki mswiki scowiki skwiki thwiki euwiki kawiki azwiki bswiki lawiki nnwiki slwiki
be_x_oldwiki ocwiki urwiki zh_yuewiki brwiki mkwiki tawiki iswiki afwiki cywiki gawiki kkwiki mrwiki
ttwiki yiwiki hiwiki ckbwiki iowiki jvwiki lbwiki mlwiki pnbwiki sqwiki warwiki zh_min_nanwiki
astwiki bnwiki quwiki tlwiki anwiki mnwiki mywiki ndswiki tgwiki uzwiki alswiki kuwiki pawiki swwiki
commonswiki bat_smgwiki cvwiki lmowiki bawiki bxrwiki iawiki tewiki vecwiki arzwiki gdwiki hsbwiki
htwiki scnwiki vepwiki cebwiki fowiki fywiki pmswiki plwikiquote enwikiquote barwiki extwiki liwiki
szlwiki hakwiki cdowiki ruewiki amwiki cewiki dsbwiki gnwiki siwiki ugwiki yowiki itwikiquote angwiki
diqwiki gvwiki ilowiki knwiki oswiki sowiki vowiki wuuwiki azbwiki sahwiki eswikiquote fiu_vrowiki
hifwiki ladwiki lnwiki newiki scwiki kywiki mhrwiki cowiki suwiki vlswiki arcwiki mgwiki newwiki
frrwiki kwwiki lijwiki nds_nlwiki xmfwiki emlwiki bclwiki csbwiki kvwiki wawiki zh_classicalwiki
lezwiki nahwiki napwiki roa_tarawiki sawiki sewiki pswiki nrmwiki roa_rupwiki xalwiki orwiki wowiki
olowiki ganwiki bowiki krcwiki chrwiki frpwiki furwiki guwiki hawwiki rwwiki ruwikiquote enwikivoyage
dewikivoyage kshwiki mznwiki bhwiki jamwiki itwikivoyage frwikivoyage iewiki lowiki mtwiki novwiki
pamwiki papwiki smwiki snwiki stqwiki eewiki gagwiki jbowiki tkwiki myvwiki hewikivoyage kaawiki
tpiwiki zeawiki kmwiki klwiki ptwikivoyage plwikivoyage fawikivoyage pihwiki zhwikivoyage aywiki
crhwiki kabwiki maiwiki dewikiquote eswikivoyage nlwikivoyage miwiki tetwiki koiwiki mdfwiki nawiki
udmwiki ukwikiquote skwikiquote mwlwiki viwikivoyage rmwiki ruwikinews cuwiki dvwiki kbdwiki pntwiki
sdwiki cawikiquote aswiki abwiki svwikivoyage ruwikivoyage ukwikivoyage pcdwiki sswiki zuwiki
fiwikivoyage pdcwiki avwiki mrjwiki minwiki elwikivoyage frwikinews rowikivoyage acewiki bpywiki
adywiki ptwikiquote gotwiki zawiki gomwiki frwikiquote kgwiki nvwiki igwiki cswikiquote iuwiki
jawikiquote bjnwiki nsowiki cbk_zamwiki ltgwiki srnwiki tumwiki biwiki pagwiki fawikiquote`)
)

// Syllables per script, so labels in ru, ja, ar, ... are multi-byte UTF-8
// as in the dump.
var (
	cyrillic = strings.Fields("ка ло ми ра не то ви са ду пе лин мор тан бел кор дан")
	cjk      = strings.Fields("東 京 大 学 山 川 田 中 北 南 市 国 本 日 人 文")
	arabic   = strings.Fields("كا لو مي را نا تو في سا دو بي لين مور تان")
)

func scriptOf(lang string) []string {
	switch lang {
	case "ru", "uk", "be", "bg", "sr", "mk", "kk", "be-tarask", "tt", "ba", "cv", "sah", "ky", "tg":
		return cyrillic
	case "ja", "zh", "zh-hans", "zh-hant", "yue", "zh-cn", "zh-hk", "zh-tw", "wuu", "lzh", "gan", "ko":
		return cjk
	case "ar", "fa", "ur", "arz", "ckb", "pnb", "azb", "mzn", "ps", "sd", "glk":
		return arabic
	}
	return syllables
}

type wdProp struct {
	id       string
	datatype string
}

// wdGen writes one dump.
type wdGen struct {
	cfg      WikidataConfig
	w        *bufio.Writer
	rng      *rand.Rand
	props    []wdProp
	propZipf *rand.Zipf
	itemZipf *rand.Zipf
	items    int64
	b        []byte
	st       WikidataStats
}

// WriteWikidata writes a Wikidata-JSON-dump-like array of cfg.Entities
// entities to w (see the calibration above). The output for a given
// config is always the same.
func WriteWikidata(w io.Writer, cfg WikidataConfig) (WikidataStats, error) {
	if cfg.Entities <= 0 {
		return WikidataStats{}, fmt.Errorf("synth: entities must be positive")
	}
	if cfg.Properties <= 0 {
		cfg.Properties = 2000
	}
	cfg.Properties = int(max(1, min(int64(cfg.Properties), cfg.Entities/10)))
	g := &wdGen{cfg: cfg, w: bufio.NewWriterSize(w, 1<<20),
		rng: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x5851f42d4c957f2d))}
	g.items = cfg.Entities - int64(cfg.Properties)
	g.setupProperties()
	g.propZipf = rand.NewZipf(g.rng, 1.3, 4, uint64(len(g.props)-1))
	g.itemZipf = rand.NewZipf(g.rng, 1.15, 1, uint64(max(g.items, 2)-1))
	if _, err := g.w.WriteString("[\n"); err != nil {
		return g.st, err
	}
	for i := range g.props {
		g.property(i)
		if err := g.flush(); err != nil {
			return g.st, err
		}
	}
	for q := int64(1); q <= g.items; q++ {
		g.item(q)
		if err := g.flush(); err != nil {
			return g.st, err
		}
	}
	_, err := g.w.WriteString("]\n")
	g.st.Bytes += 4
	if err == nil {
		err = g.w.Flush()
	}
	return g.st, err
}

// flush writes the entity in g.b with its line separator.
func (g *wdGen) flush() error {
	g.st.Entities++
	if g.st.Entities < g.cfg.Entities {
		g.b = append(g.b, ',')
	}
	g.b = append(g.b, '\n')
	g.st.Bytes += int64(len(g.b))
	_, err := g.w.Write(g.b)
	g.b = g.b[:0]
	return err
}

// setupProperties picks the properties' ids and datatypes; the most used
// ones are Wikidata's (P31 instance of, P17 country, ...).
func (g *wdGen) setupProperties() {
	head := []wdProp{{"P31", "wikibase-item"}, {"P17", "wikibase-item"}, {"P131", "wikibase-item"},
		{"P625", "globe-coordinate"}, {"P569", "time"}, {"P21", "wikibase-item"}, {"P214", "external-id"},
		{"P577", "time"}, {"P1476", "monolingualtext"}, {"P356", "external-id"}, {"P1082", "quantity"},
		{"P18", "commonsMedia"}, {"P856", "url"}, {"P248", "wikibase-item"}, {"P813", "time"}, {"P854", "url"}}
	var total float64
	for _, d := range wdDatatypes {
		total += d.weight
	}
	for i := 0; i < g.cfg.Properties; i++ {
		if i < len(head) {
			g.props = append(g.props, head[i])
			continue
		}
		x := g.rng.Float64() * total
		dt := wdDatatypes[0].name
		for _, d := range wdDatatypes {
			if x < d.weight {
				dt = d.name
				break
			}
			x -= d.weight
		}
		g.props = append(g.props, wdProp{id: "P" + strconv.Itoa(1000+i), datatype: dt})
	}
}

func (g *wdGen) property(i int) {
	p := g.props[i]
	g.st.Properties++
	g.b = append(g.b, `{"type":"property","datatype":`...)
	g.b = strconv.AppendQuote(g.b, p.datatype)
	g.b = append(g.b, `,"id":"`...)
	g.b = append(g.b, p.id...)
	g.b = append(g.b, '"')
	n := 10 + g.rng.IntN(50)
	g.terms("labels", wdLanguages[:n], 2)
	g.terms("descriptions", wdLanguages[:n/2], 5)
	g.aliases(wdLanguages[:3], g.rng.IntN(4))
	g.b = append(g.b, `,"claims":{}`...)
	g.page(int64(i)+1, 120, "Property:"+p.id)
	g.b = append(g.b, '}')
}

// item writes item Q<q>.
func (g *wdGen) item(q int64) {
	z := g.rng.NormFloat64()
	id := "Q" + strconv.FormatInt(q, 10)
	g.b = append(g.b, `{"type":"item","id":"`...)
	g.b = append(g.b, id...)
	g.b = append(g.b, '"')
	g.terms("labels", g.languages(clampInt(1+int(math.Round(math.Exp(1.8*z))), 1, 300)), 3)
	nd := clampInt(int(math.Round(math.Exp(1.2*z))), 0, 80)
	if g.rng.Float64() < 0.35 {
		nd = 20 + g.rng.IntN(41)
	}
	g.terms("descriptions", wdLanguages[:nd], 4)
	g.aliases(wdLanguages, clampInt(int(math.Round(math.Exp(1.5*z-1))), 0, 300))
	g.claims(id, z)
	g.sitelinks(z)
	g.page(int64(g.cfg.Properties)+q, 0, id)
	g.b = append(g.b, '}')
}

func clampInt(v, lo, hi int) int { return max(lo, min(v, hi)) }

// languages returns n label languages: the most common ones, English
// missing for 15% of items.
func (g *wdGen) languages(n int) []string {
	n = min(n, len(wdLanguages)-1)
	if g.rng.Float64() < 0.15 {
		return wdLanguages[1 : n+1]
	}
	return wdLanguages[:n]
}

// terms writes "name":{"lang":{"language":"lang","value":"..."},...}.
func (g *wdGen) terms(name string, langs []string, words int) {
	g.b = append(g.b, `,"`...)
	g.b = append(g.b, name...)
	g.b = append(g.b, `":{`...)
	for i, l := range langs {
		if i > 0 {
			g.b = append(g.b, ',')
		}
		g.b = strconv.AppendQuote(g.b, l)
		g.b = append(g.b, `:{"language":`...)
		g.b = strconv.AppendQuote(g.b, l)
		g.b = append(g.b, `,"value":"`...)
		g.text(scriptOf(l), 1+g.rng.IntN(words))
		g.b = append(g.b, `"}`...)
	}
	if name == "labels" {
		g.st.Labels += int64(len(langs))
	} else {
		g.st.Descriptions += int64(len(langs))
	}
	g.b = append(g.b, '}')
}

// aliases writes n aliases spread over the first languages.
func (g *wdGen) aliases(langs []string, n int) {
	g.st.Aliases += int64(n)
	g.b = append(g.b, `,"aliases":{`...)
	for li := 0; n > 0; li++ {
		k := min(n, 1+g.rng.IntN(3))
		n -= k
		if li > 0 {
			g.b = append(g.b, ',')
		}
		l := langs[li%len(langs)]
		g.b = strconv.AppendQuote(g.b, l)
		g.b = append(g.b, ":["...)
		for j := 0; j < k; j++ {
			if j > 0 {
				g.b = append(g.b, ',')
			}
			g.b = append(g.b, `{"language":`...)
			g.b = strconv.AppendQuote(g.b, l)
			g.b = append(g.b, `,"value":"`...)
			g.text(scriptOf(l), 1+g.rng.IntN(3))
			g.b = append(g.b, `"}`...)
		}
		g.b = append(g.b, ']')
	}
	g.b = append(g.b, '}')
}

// text appends k words of 2-3 syllables (no characters that need JSON
// escaping).
func (g *wdGen) text(syl []string, k int) {
	for i := 0; i < k; i++ {
		if i > 0 {
			g.b = append(g.b, ' ')
		}
		for j := 2 + g.rng.IntN(2); j > 0; j-- {
			g.b = append(g.b, syl[g.rng.IntN(len(syl))]...)
		}
	}
}

// claims writes the statements of item id, grouped by property with P31
// first.
func (g *wdGen) claims(id string, z float64) {
	n := clampInt(int(math.Round(8*math.Exp(1.12*z))), 1, 5000)
	counts := map[int]int{0: 1}
	order := []int{0}
	for i := 1; i < n; i++ {
		p := int(g.propZipf.Uint64())
		if counts[p] == 0 {
			order = append(order, p)
		}
		counts[p]++
	}
	pQual := 0.12
	if z > 1.5 {
		pQual = 0.35
	}
	g.b = append(g.b, `,"claims":{`...)
	for i, p := range order {
		if i > 0 {
			g.b = append(g.b, ',')
		}
		g.b = append(g.b, '"')
		g.b = append(g.b, g.props[p].id...)
		g.b = append(g.b, `":[`...)
		for j := 0; j < counts[p]; j++ {
			if j > 0 {
				g.b = append(g.b, ',')
			}
			g.statement(id, p, pQual)
		}
		g.b = append(g.b, ']')
	}
	g.b = append(g.b, '}')
}

func (g *wdGen) statement(id string, p int, pQual float64) {
	g.st.Statements++
	g.b = append(g.b, `{"mainsnak":`...)
	g.snak(p, false)
	g.b = append(g.b, `,"type":"statement","id":"`...)
	g.b = append(g.b, id...)
	g.b = append(g.b, '$')
	g.uuid()
	g.b = append(g.b, `","rank":"`...)
	switch r := g.rng.IntN(100); {
	case r < 3:
		g.b = append(g.b, "preferred"...)
	case r < 4:
		g.b = append(g.b, "deprecated"...)
	default:
		g.b = append(g.b, "normal"...)
	}
	g.b = append(g.b, '"')
	if g.rng.Float64() < pQual {
		n := 1
		if g.rng.IntN(10) < 3 {
			n += 1 + g.rng.IntN(2)
		}
		g.st.Qualifiers += int64(n)
		g.snakGroup("qualifiers", n)
	}
	if g.rng.Float64() < 0.5 {
		refs := 1
		if g.rng.IntN(20) == 0 {
			refs = 2
		}
		g.b = append(g.b, `,"references":[`...)
		for r := 0; r < refs; r++ {
			g.st.References++
			if r > 0 {
				g.b = append(g.b, ',')
			}
			g.b = append(g.b, `{"hash":"`...)
			g.hex(40)
			g.b = append(g.b, '"')
			g.snakGroup("snaks", 1+g.rng.IntN(3))
			g.b = append(g.b, '}')
		}
		g.b = append(g.b, ']')
	}
	g.b = append(g.b, '}')
}

// snakGroup writes "name":{"P..":[snak]...},"name-order":[...] with n
// snaks on distinct properties (at most as many as there are).
func (g *wdGen) snakGroup(name string, n int) {
	n = min(n, len(g.props))
	ps := make([]int, 0, n)
	for len(ps) < n {
		p := int(g.propZipf.Uint64())
		dup := false
		for _, q := range ps {
			dup = dup || q == p
		}
		if !dup {
			ps = append(ps, p)
		}
	}
	g.b = append(g.b, `,"`...)
	g.b = append(g.b, name...)
	g.b = append(g.b, `":{`...)
	for i, p := range ps {
		if i > 0 {
			g.b = append(g.b, ',')
		}
		g.b = append(g.b, '"')
		g.b = append(g.b, g.props[p].id...)
		g.b = append(g.b, `":[`...)
		g.snak(p, true)
		g.b = append(g.b, ']')
	}
	g.b = append(g.b, `},"`...)
	g.b = append(g.b, name...)
	g.b = append(g.b, `-order":[`...)
	for i, p := range ps {
		if i > 0 {
			g.b = append(g.b, ',')
		}
		g.b = strconv.AppendQuote(g.b, g.props[p].id)
	}
	g.b = append(g.b, ']')
}

// snak writes a snak of property p; qualifier and reference snaks carry a
// hash, as in the dump.
func (g *wdGen) snak(p int, hashed bool) {
	pr := g.props[p]
	kind := "value"
	if r := g.rng.IntN(200); r == 0 {
		kind = "somevalue"
	} else if r == 1 {
		kind = "novalue"
	}
	g.b = append(g.b, `{"snaktype":"`...)
	g.b = append(g.b, kind...)
	g.b = append(g.b, `","property":"`...)
	g.b = append(g.b, pr.id...)
	g.b = append(g.b, '"')
	if hashed {
		g.b = append(g.b, `,"hash":"`...)
		g.hex(40)
		g.b = append(g.b, '"')
	}
	if kind == "value" {
		g.b = append(g.b, `,"datavalue":`...)
		g.datavalue(pr.datatype)
	}
	g.b = append(g.b, `,"datatype":"`...)
	g.b = append(g.b, pr.datatype...)
	g.b = append(g.b, `"}`...)
}

func (g *wdGen) datavalue(dt string) {
	switch dt {
	case "wikibase-item":
		n := strconv.FormatUint(1+g.itemZipf.Uint64(), 10)
		g.b = append(g.b, `{"value":{"entity-type":"item","numeric-id":`...)
		g.b = append(g.b, n...)
		g.b = append(g.b, `,"id":"Q`...)
		g.b = append(g.b, n...)
		g.b = append(g.b, `"},"type":"wikibase-entityid"}`...)
	case "time":
		prec := []int{9, 11, 11, 11, 10, 7}[g.rng.IntN(6)]
		g.b = append(g.b, `{"value":{"time":"+`...)
		g.b = fmt.Appendf(g.b, "%04d-%02d-%02dT00:00:00Z", 1500+g.rng.IntN(525), 1+g.rng.IntN(12), 1+g.rng.IntN(28))
		g.b = append(g.b, `","timezone":0,"before":0,"after":0,"precision":`...)
		g.b = strconv.AppendInt(g.b, int64(prec), 10)
		g.b = append(g.b, `,"calendarmodel":"http://www.wikidata.org/entity/Q1985727"},"type":"time"}`...)
	case "quantity":
		g.b = append(g.b, `{"value":{"amount":"+`...)
		g.b = strconv.AppendInt(g.b, int64(g.rng.IntN(10_000_000)), 10)
		if g.rng.IntN(2) == 0 {
			g.b = append(g.b, `","unit":"1"},"type":"quantity"}`...)
		} else {
			g.b = append(g.b, `","unit":"http://www.wikidata.org/entity/Q11573"},"type":"quantity"}`...)
		}
	case "monolingualtext":
		l := wdLanguages[g.rng.IntN(12)]
		g.b = append(g.b, `{"value":{"text":"`...)
		g.text(scriptOf(l), 2+g.rng.IntN(8))
		g.b = append(g.b, `","language":"`...)
		g.b = append(g.b, l...)
		g.b = append(g.b, `"},"type":"monolingualtext"}`...)
	case "globe-coordinate":
		g.b = append(g.b, `{"value":{"latitude":`...)
		g.b = strconv.AppendFloat(g.b, g.rng.Float64()*180-90, 'f', 6, 64)
		g.b = append(g.b, `,"longitude":`...)
		g.b = strconv.AppendFloat(g.b, g.rng.Float64()*360-180, 'f', 6, 64)
		g.b = append(g.b, `,"altitude":null,"precision":1.0e-6,"globe":"http://www.wikidata.org/entity/Q2"},"type":"globecoordinate"}`...)
	case "url":
		g.b = append(g.b, `{"value":"https://www.example.org/`...)
		g.text(syllables, 2)
		g.b = append(g.b, `","type":"string"}`...)
	case "commonsMedia":
		g.b = append(g.b, `{"value":"`...)
		g.text(syllables, 2)
		g.b = append(g.b, `.jpg","type":"string"}`...)
	case "external-id":
		g.b = append(g.b, `{"value":"`...)
		g.b = strconv.AppendInt(g.b, int64(g.rng.IntN(1_000_000_000)), 10)
		g.b = append(g.b, `","type":"string"}`...)
	default: // string
		g.b = append(g.b, `{"value":"`...)
		g.text(syllables, 1+g.rng.IntN(4))
		g.b = append(g.b, `","type":"string"}`...)
	}
}

func (g *wdGen) sitelinks(z float64) {
	n := 0
	if z >= 0.7 {
		n = clampInt(int(math.Round(2*math.Exp(2.2*(z-0.7)))), 1, len(wdSites))
	}
	g.st.Sitelinks += int64(n)
	g.b = append(g.b, `,"sitelinks":{`...)
	for i, s := range wdSites[:n] {
		if i > 0 {
			g.b = append(g.b, ',')
		}
		g.b = strconv.AppendQuote(g.b, s)
		g.b = append(g.b, `:{"site":`...)
		g.b = strconv.AppendQuote(g.b, s)
		g.b = append(g.b, `,"title":"`...)
		g.text(syllables, 1+g.rng.IntN(3))
		g.b = append(g.b, `","badges":[]}`...)
	}
	g.b = append(g.b, '}')
}

// page writes the page metadata members.
func (g *wdGen) page(pageID int64, ns int, title string) {
	g.b = append(g.b, `,"pageid":`...)
	g.b = strconv.AppendInt(g.b, pageID, 10)
	g.b = append(g.b, `,"ns":`...)
	g.b = strconv.AppendInt(g.b, int64(ns), 10)
	g.b = append(g.b, `,"title":`...)
	g.b = strconv.AppendQuote(g.b, title)
	g.b = append(g.b, `,"lastrevid":`...)
	g.b = strconv.AppendInt(g.b, 1_000_000_000+int64(g.rng.IntN(1_500_000_000)), 10)
	g.b = fmt.Appendf(g.b, `,"modified":"2024-%02d-%02dT%02d:%02d:%02dZ"`, 1+g.rng.IntN(12), 1+g.rng.IntN(28), g.rng.IntN(24), g.rng.IntN(60), g.rng.IntN(60))
}

const hexDigits = "0123456789abcdef"

func (g *wdGen) hex(n int) {
	for i := 0; i < n; i++ {
		g.b = append(g.b, hexDigits[g.rng.IntN(16)])
	}
}

func (g *wdGen) uuid() {
	for i, n := range []int{8, 4, 4, 4, 12} {
		if i > 0 {
			g.b = append(g.b, '-')
		}
		g.hex(n)
	}
}
