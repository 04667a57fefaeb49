package metrics

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/metrics/metricstest"
)

// scrape writes r and parses it back strictly.
func scrape(t *testing.T, r *Registry) (metricstest.Scrape, string) {
	t.Helper()
	var b bytes.Buffer
	if err := r.WriteText(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	s, err := metricstest.Parse(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatalf("our own output does not parse: %v\n%s", err, b.String())
	}
	return s, b.String()
}

func TestWriteText(t *testing.T) {
	r := NewRegistry()
	c := r.Counter("x_total", "Things.\nTwo lines \\ of help.", "kind")
	c.With("a").Add(3)
	c.With(`we"ird\` + "\nvalue").Inc()
	g := r.Gauge("open", "Open things.")
	g.Add(5)
	g.Add(-2)
	r.GaugeFunc("pending", "Pending.", func(context.Context) (float64, error) { return 7, nil }, nil)
	var failed error
	r.GaugeFunc("broken", "Fails.", func(context.Context) (float64, error) { return 0, errors.New("db down") }, func(err error) { failed = err })
	r.Info("build_info", "Build.", []string{"version"}, []string{"v1.2.3"})
	h := r.Histogram("lat_seconds", "Latency.", []float64{0.1, 0.01, 1}, "op")
	for _, v := range []float64{0.005, 0.01, 0.05, 0.5, 3} {
		h.With("commit").Observe(v)
	}
	s, text := scrape(t, r)
	if failed == nil {
		t.Error("a failing gauge function's error was not reported")
	}
	for _, tc := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"x_total", []string{"kind", "a"}, 3},
		{"x_total", []string{"kind", `we"ird\` + "\nvalue"}, 1},
		{"open", nil, 3},
		{"pending", nil, 7},
		{"build_info", []string{"version", "v1.2.3"}, 1},
		{"lat_seconds_bucket", []string{"op", "commit", "le", "0.01"}, 2}, // le is "less or equal"
		{"lat_seconds_bucket", []string{"op", "commit", "le", "0.1"}, 3},
		{"lat_seconds_bucket", []string{"op", "commit", "le", "1"}, 4},
		{"lat_seconds_bucket", []string{"op", "commit", "le", "+Inf"}, 5},
		{"lat_seconds_count", []string{"op", "commit"}, 5},
		{"lat_seconds_sum", []string{"op", "commit"}, 3.565},
	} {
		got, ok := s.Value(tc.name, tc.labels...)
		if !ok || math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s%v = %v (found %v), want %v\n%s", tc.name, tc.labels, got, ok, tc.want, text)
		}
	}
	if _, ok := s.Value("broken"); ok {
		t.Error("a gauge whose function failed has a sample; it should have none")
	}
	if s.Types["broken"] != "gauge" || s.Types["lat_seconds"] != "histogram" || s.Types["x_total"] != "counter" {
		t.Errorf("types: %v", s.Types)
	}
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		if !strings.HasPrefix(line, "# HELP ") && !strings.HasPrefix(line, "# TYPE ") && strings.Count(line, " ") < 1 {
			t.Errorf("line without a value: %q", line)
		}
	}
}

// TestConcurrent: counters and histograms take concurrent updates and scrapes; totals add up.
func TestConcurrent(t *testing.T) {
	r := NewRegistry()
	c := r.Counter("n_total", "N.", "w")
	h := r.Histogram("d_seconds", "D.", nil).With()
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 1)
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			var b bytes.Buffer
			_ = r.WriteText(context.Background(), &b)
			if _, err := metricstest.Parse(&b); err != nil {
				select {
				case errs <- err:
				default:
				}
				return
			}
		}
	})
	var workers sync.WaitGroup
	for w := range 4 {
		workers.Go(func() {
			for i := range 1000 {
				c.With([]string{"a", "b"}[w%2]).Inc()
				h.ObserveDuration(time.Duration(i) * time.Millisecond)
			}
		})
	}
	workers.Wait()
	close(stop)
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatalf("a scrape during updates did not parse: %v", err)
	default:
	}
	s, _ := scrape(t, r)
	if got := s.Sum("n_total"); got != 4000 {
		t.Errorf("counted %v, want 4000", got)
	}
	if got, _ := s.Value("d_seconds_count"); got != 4000 {
		t.Errorf("observed %v, want 4000", got)
	}
}

func TestMessageKind(t *testing.T) {
	for _, tc := range []struct {
		method string
		resp   bool
		want   string
	}{
		{"session/update", false, "session/update"},
		{"", true, "response"},
		{"_custom/thing", false, "other"},
		{"session/update\n", false, "other"},
		{"session/set_model", false, "session/set_model"}, // ingest accepts it: counted by name too
		{"session/list", false, "session/list"},
	} {
		if got := MessageKind(tc.method, tc.resp); got != tc.want {
			t.Errorf("MessageKind(%q, %v) = %q, want %q", tc.method, tc.resp, got, tc.want)
		}
	}
}

// FuzzLabelValue: any label value is written so that it parses back to itself, and the
// exposition stays valid.
func FuzzLabelValue(f *testing.F) {
	for _, s := range []string{"", "a", `"`, `\`, "\n", `\n`, "}", `a="b"`, "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		r := NewRegistry()
		r.Counter("c_total", "C.", "k").With(v).Inc()
		r.Histogram("h_seconds", "H.", nil, "k").With(v).Observe(0.01)
		var b bytes.Buffer
		if err := r.WriteText(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		s, err := metricstest.Parse(&b)
		if err != nil {
			t.Fatalf("value %q: %v\n%s", v, err, b.String())
		}
		if got, ok := s.Value("c_total", "k", v); !ok || got != 1 {
			t.Fatalf("value %q did not round-trip: %+v", v, s.Samples)
		}
	})
}
