package metricstest

import (
	"strings"
	"testing"
)

// TestParseRejects: the parser is strict, so a test that scrapes through it checks the format.
func TestParseRejects(t *testing.T) {
	head := "# HELP a A.\n# TYPE a counter\n"
	for name, text := range map[string]string{
		"no help":          "# TYPE a counter\na 1\n",
		"no type":          "# HELP a A.\na 1\n",
		"bad name":         "# HELP 1a A.\n# TYPE 1a counter\n1a 1\n",
		"unquoted label":   head + "a{k=v} 1\n",
		"bad escape":       head + `a{k="\t"} 1` + "\n",
		"unterminated":     head + `a{k="v} 1` + "\n",
		"two spaces":       head + "a  1\n",
		"no value":         head + "a\n",
		"word value":       head + "a one\n",
		"duplicate label":  head + `a{k="1",k="2"} 1` + "\n",
		"unknown type":     "# HELP a A.\n# TYPE a meter\na 1\n",
		"not cumulative":   "# HELP h H.\n# TYPE h histogram\n" + `h_bucket{le="1"} 2` + "\n" + `h_bucket{le="+Inf"} 1` + "\nh_sum 1\nh_count 1\n",
		"inf is not count": "# HELP h H.\n# TYPE h histogram\n" + `h_bucket{le="+Inf"} 2` + "\nh_sum 1\nh_count 3\n",
	} {
		if _, err := Parse(strings.NewReader(text)); err == nil {
			t.Errorf("%s: parsed %q", name, text)
		}
	}
}

// FuzzParse: the parser never panics, and what it accepts has every sample's family typed.
func FuzzParse(f *testing.F) {
	f.Add("# HELP a A.\n# TYPE a counter\na{k=\"v\"} 1\n")
	f.Add("# HELP h H.\n# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n")
	f.Add("a 1 123\n")
	f.Fuzz(func(t *testing.T, text string) {
		s, err := Parse(strings.NewReader(text))
		if err != nil {
			return
		}
		for _, x := range s.Samples {
			if _, ok := s.Types[family0(x.Name, s.Types)]; !ok {
				t.Fatalf("accepted %s without a TYPE", x.Name)
			}
		}
	})
}
