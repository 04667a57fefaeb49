// Package metricstest reads the Prometheus text format back, strictly, for the tests and
// benchmarks that check what plandash exposes: a test that scrapes through it checks the format.
package metricstest

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Sample is one line of the text format: a series and its value.
type Sample struct {
	Name   string
	Labels map[string]string
	Value  float64
}

// Scrape is a parsed exposition: the samples in order, and each family's TYPE.
type Scrape struct {
	Samples []Sample
	Types   map[string]string
}

// Value is the value of the series name with exactly these labels (pairs: k1, v1, k2, v2…),
// and whether there is one.
func (s Scrape) Value(name string, labels ...string) (float64, bool) {
	for _, x := range s.Samples {
		if x.Name != name || len(x.Labels) != len(labels)/2 {
			continue
		}
		match := true
		for i := 0; i+1 < len(labels); i += 2 {
			if v, ok := x.Labels[labels[i]]; !ok || v != labels[i+1] {
				match = false
				break
			}
		}
		if match {
			return x.Value, true
		}
	}
	return 0, false
}

// Sum adds the values of every series of name whose labels include these pairs.
func (s Scrape) Sum(name string, labels ...string) float64 {
	var sum float64
	for _, x := range s.Samples {
		if x.Name != name {
			continue
		}
		match := true
		for i := 0; i+1 < len(labels); i += 2 {
			if x.Labels[labels[i]] != labels[i+1] {
				match = false
			}
		}
		if match {
			sum += x.Value
		}
	}
	return sum
}

var (
	nameRE  = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	labelRE = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
)

// maxScrapeLine bounds one line: an exposition is read from another process.
const maxScrapeLine = 1 << 20

// Parse reads the text exposition format strictly, as plandash writes it: every sample's family
// has HELP and TYPE lines before it, names and label names are valid, label values are quoted
// and escaped, values are numbers, and a histogram's buckets are cumulative with +Inf equal to
// its _count. It is for tests and for the load test reading a server's /metrics.
func Parse(r io.Reader) (Scrape, error) {
	out := Scrape{Types: map[string]string{}}
	helped := map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxScrapeLine)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if line == "" {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "# "); ok {
			kw, rest, _ := strings.Cut(rest, " ")
			name, arg, _ := strings.Cut(rest, " ")
			switch kw {
			case "HELP":
				if !nameRE.MatchString(name) {
					return out, fmt.Errorf("line %d: bad metric name %q", n, name)
				}
				helped[name] = true
			case "TYPE":
				if !nameRE.MatchString(name) {
					return out, fmt.Errorf("line %d: bad metric name %q", n, name)
				}
				switch arg {
				case "counter", "gauge", "histogram", "summary", "untyped":
				default:
					return out, fmt.Errorf("line %d: unknown type %q", n, arg)
				}
				if _, dup := out.Types[name]; dup {
					return out, fmt.Errorf("line %d: second TYPE for %s", n, name)
				}
				out.Types[name] = arg
			}
			continue
		}
		s, err := parseSample(line)
		if err != nil {
			return out, fmt.Errorf("line %d: %w", n, err)
		}
		fam := family0(s.Name, out.Types)
		if _, ok := out.Types[fam]; !ok || !helped[fam] {
			return out, fmt.Errorf("line %d: %s has no HELP and TYPE before it", n, s.Name)
		}
		out.Samples = append(out.Samples, s)
	}
	if err := sc.Err(); err != nil {
		return out, err
	}
	return out, checkHistograms(out)
}

// family0 is the family a sample belongs to: a histogram's _bucket, _sum and _count lines
// belong to the histogram.
func family0(name string, types map[string]string) string {
	for _, suf := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(name, suf); ok && types[base] == "histogram" {
			return base
		}
	}
	return name
}

func parseSample(line string) (Sample, error) {
	s := Sample{Labels: map[string]string{}}
	i := strings.IndexAny(line, "{ ")
	if i < 0 {
		return s, fmt.Errorf("no value: %q", line)
	}
	s.Name = line[:i]
	if !nameRE.MatchString(s.Name) {
		return s, fmt.Errorf("bad metric name %q", s.Name)
	}
	rest := line[i:]
	if strings.HasPrefix(rest, "{") {
		var err error
		if rest, err = parseLabels(rest[1:], s.Labels); err != nil {
			return s, err
		}
	}
	val, ok := strings.CutPrefix(rest, " ")
	if !ok {
		return s, fmt.Errorf("want one space before the value: %q", line)
	}
	if f := strings.Fields(val); len(f) == 2 {
		val = f[0] // a timestamp follows; plandash writes none but the format allows it
		if _, err := strconv.ParseInt(f[1], 10, 64); err != nil {
			return s, fmt.Errorf("bad timestamp %q", f[1])
		}
	}
	v, err := parseValue(val)
	if err != nil {
		return s, err
	}
	s.Value = v
	return s, nil
}

// parseLabels reads k="v",… up to the closing brace and returns what follows it.
func parseLabels(s string, into map[string]string) (string, error) {
	for {
		if rest, ok := strings.CutPrefix(s, "}"); ok {
			return rest, nil
		}
		eq := strings.IndexByte(s, '=')
		if eq < 0 {
			return "", fmt.Errorf("unterminated labels")
		}
		k := s[:eq]
		if !labelRE.MatchString(k) {
			return "", fmt.Errorf("bad label name %q", k)
		}
		if _, dup := into[k]; dup {
			return "", fmt.Errorf("label %s twice", k)
		}
		s = s[eq+1:]
		if !strings.HasPrefix(s, `"`) {
			return "", fmt.Errorf("label %s: value not quoted", k)
		}
		var v strings.Builder
		j := 1
		for ; j < len(s) && s[j] != '"'; j++ {
			if s[j] == '\n' {
				return "", fmt.Errorf("label %s: raw newline", k)
			}
			if s[j] != '\\' {
				v.WriteByte(s[j])
				continue
			}
			j++
			if j == len(s) {
				return "", fmt.Errorf("label %s: unterminated escape", k)
			}
			switch s[j] {
			case '\\', '"':
				v.WriteByte(s[j])
			case 'n':
				v.WriteByte('\n')
			default:
				return "", fmt.Errorf("label %s: bad escape \\%c", k, s[j])
			}
		}
		if j >= len(s) {
			return "", fmt.Errorf("label %s: unterminated value", k)
		}
		into[k] = v.String()
		s = s[j+1:]
		if rest, ok := strings.CutPrefix(s, ","); ok {
			s = rest
		} else if !strings.HasPrefix(s, "}") {
			return "", fmt.Errorf("after label %s: want , or }", k)
		}
	}
}

func parseValue(s string) (float64, error) {
	switch s {
	case "+Inf":
		return math.Inf(1), nil
	case "-Inf":
		return math.Inf(-1), nil
	case "NaN":
		return math.NaN(), nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("bad value %q", s)
	}
	return v, nil
}

// checkHistograms checks every histogram series: buckets ascending in le, counts cumulative,
// a +Inf bucket equal to _count.
func checkHistograms(s Scrape) error {
	type series struct {
		lastLE, lastN float64
		inf           float64
		hasInf        bool
	}
	seen := map[string]*series{}
	key := func(name string, l map[string]string) string {
		var b strings.Builder
		b.WriteString(name)
		for _, k := range slices.Sorted(maps.Keys(l)) {
			if k != "le" {
				fmt.Fprintf(&b, "|%s=%s", k, l[k])
			}
		}
		return b.String()
	}
	for _, x := range s.Samples {
		base, ok := strings.CutSuffix(x.Name, "_bucket")
		if !ok || s.Types[base] != "histogram" {
			continue
		}
		le, err := parseValue(x.Labels["le"])
		if err != nil {
			return fmt.Errorf("%s: bucket without a valid le", x.Name)
		}
		k := key(base, x.Labels)
		st := seen[k]
		if st == nil {
			st = &series{lastLE: math.Inf(-1)}
			seen[k] = st
		}
		if le <= st.lastLE || x.Value < st.lastN {
			return fmt.Errorf("%s: buckets not ascending and cumulative at le=%s", base, x.Labels["le"])
		}
		st.lastLE, st.lastN = le, x.Value
		if math.IsInf(le, 1) {
			st.inf, st.hasInf = x.Value, true
		}
	}
	for _, x := range s.Samples {
		base, ok := strings.CutSuffix(x.Name, "_count")
		if !ok || s.Types[base] != "histogram" {
			continue
		}
		st := seen[key(base, x.Labels)]
		if st == nil || !st.hasInf || st.inf != x.Value {
			return fmt.Errorf("%s: the +Inf bucket does not equal _count", base)
		}
	}
	return nil
}
