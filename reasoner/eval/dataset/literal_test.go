package dataset

import "testing"

func TestFormatDate(t *testing.T) {
	// Expected values are what the Tree-of-Traversals format_date returns
	// under CPython 3.11 on Linux.
	tests := []struct{ in, want string }{
		{"1997-04-05T00:00:00Z", "April 05, 1997"},
		{"1900-01-01T00:00:00Z", "1900"},
		{"1273-12-17T00:00:00Z", "December 17, 1273"},
		{"+1944-11-17T00:00:00Z", "November 17, 1944"},
		{"-7000-01-01T00:00:00Z", "7000 BCE"},
		{"-3600000-01-01T00:00:00Z", "3600000 BCE"},
		{"-0044-03-15T00:00:00Z", "March 15, 44 BCE"},
		{"0500-03-04T00:00:00Z", "March 04, 500"},
		{"5-01-01T00:00:00Z", "5"},
		{"0000-01-01T00:00:00Z", "0000 BCE"},
		{"2023-02-29T00:00:00Z", "2023"},
		{"2024-02-29T00:00:00Z", "February 29, 2024"},
		{"2020-05-00T00:00:00Z", "2020"},
		{"12345-06-07T00:00:00Z", "12345"},
		{"1999-12-31T23:59:60Z", "1999"},
		{"abc", "0abc"},
		{"", "0000"},
	}
	for _, tt := range tests {
		if got := FormatDate(tt.in); got != tt.want {
			t.Errorf("FormatDate(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPlainNumber(t *testing.T) {
	tests := []struct{ in, want string }{
		{"+100", "100"}, {"0", "0"}, {"+0", "0"}, {"-0.0", "0"}, {"+242.86", "242.86"},
		{"242.860", "242.86"}, {"007", "7"}, {"-5", "-5"}, {"3.0", "3"}, {"1.5E7", "1.5E7"}, {"abc", "abc"},
	}
	for _, tt := range tests {
		if got := PlainNumber(tt.in); got != tt.want {
			t.Errorf("PlainNumber(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRenderLiteral(t *testing.T) {
	tests := []struct{ value, datatype, want, kind string }{
		{"+45000000", xsd + "decimal", "45000000", KindNumber},
		{"1981", xsd + "integer", "1981", KindNumber},
		{"1947-08-14T00:00:00Z", xsd + "dateTime", "August 14, 1947", KindDate},
		{"1947-08-14", xsd + "date", "August 14, 1947", KindDate},
		{"1947-08-14T00:00:00Z", "", "August 14, 1947", KindDate},
		{"+3", "", "3", KindNumber},
		{"Point(114.054 22.535)", "http://www.opengis.net/ont/geosparql#wktLiteral", "Point(114.054 22.535)", KindLiteral},
		{"ja", "", "ja", KindLiteral},
	}
	for _, tt := range tests {
		got, kind := renderLiteral(tt.value, tt.datatype)
		if got != tt.want || kind != tt.kind {
			t.Errorf("renderLiteral(%q, %q) = %q %q, want %q %q", tt.value, tt.datatype, got, kind, tt.want, tt.kind)
		}
	}
}
