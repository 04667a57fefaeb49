package sharedplans

import (
	"errors"
	"fmt"
	"testing"
)

func TestEncodePlanIsDockerAgentBytes(t *testing.T) {
	tests := []struct {
		name string
		plan Plan
		want string
	}{
		{"full", Plan{Name: "release", Title: "Release plan", Content: "Step 1", Author: "planner", Status: "draft", Revision: 3, UpdatedAt: "2026-07-28T12:34:56Z"},
			"{\n  \"name\": \"release\",\n  \"title\": \"Release plan\",\n  \"content\": \"Step 1\",\n  \"author\": \"planner\",\n  \"status\": \"draft\",\n  \"revision\": 3,\n  \"updatedAt\": \"2026-07-28T12:34:56Z\"\n}"},
		{"minimal", Plan{Name: "p", Content: "x", Revision: 1, UpdatedAt: "2026-07-28T12:34:56Z"},
			"{\n  \"name\": \"p\",\n  \"content\": \"x\",\n  \"revision\": 1,\n  \"updatedAt\": \"2026-07-28T12:34:56Z\"\n}"},
		{"html and line separators escaped, other unicode raw", Plan{Name: "p", Content: "<a&b>\u2028\u2029é", Revision: 1},
			"{\n  \"name\": \"p\",\n  \"content\": \"\\u003ca\\u0026b\\u003e\\u2028\\u2029é\",\n  \"revision\": 1,\n  \"updatedAt\": \"\"\n}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := EncodePlan(tt.plan)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestDecodePlan(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Plan
		wantErr string
	}{
		{name: "unknown keys ignored", in: `{"name":"p","content":"c","revision":2,"extra":{"x":1}}`, want: Plan{Name: "p", Content: "c", Revision: 2}},
		{name: "keys case-insensitive", in: `{"NAME":"p","Content":"c","UpdatedAt":"t","REVISION":4}`, want: Plan{Name: "p", Content: "c", UpdatedAt: "t", Revision: 4}},
		{name: "missing revision is 0", in: `{"content":"c"}`, want: Plan{Content: "c"}},
		{name: "null fields are zero", in: `{"content":null,"revision":null,"title":null}`, want: Plan{}},
		{name: "bare null is an empty plan", in: `null`, want: Plan{}},
		{name: "empty file", in: ``, wantErr: "unexpected end of JSON input"},
		{name: "string revision", in: `{"revision":"1"}`, wantErr: "json: cannot unmarshal string into Go struct field Plan.revision of type int"},
		{name: "fractional revision", in: `{"revision":1.5}`, wantErr: "json: cannot unmarshal number 1.5 into Go struct field Plan.revision of type int"},
		{name: "non-string content", in: `{"content":5}`, wantErr: "json: cannot unmarshal number into Go struct field Plan.content of type string"},
		{name: "top-level array", in: `[]`, wantErr: "json: cannot unmarshal array into Go value of type sharedplans.Plan"},
		{name: "trailing garbage", in: `{} x`, wantErr: "invalid character 'x' after top-level value"},
		{name: "truncated", in: `{"name":"p"`, wantErr: "unexpected end of JSON input"},
		{name: "bad key", in: `{name:1}`, wantErr: "invalid character 'n' looking for beginning of object key string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodePlan([]byte(tt.in))
			gotSum, sumErr := decodeSummary([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("DecodePlan err = %v, want %q", err, tt.wantErr)
				}
				if sumErr == nil || sumErr.Error() != tt.wantErr {
					t.Fatalf("decodeSummary err = %v, want %q", sumErr, tt.wantErr)
				}
				return
			}
			if err != nil || sumErr != nil {
				t.Fatalf("errors: %v / %v", err, sumErr)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if gotSum != tt.want.Summary() {
				t.Errorf("summary %+v, want %+v", gotSum, tt.want.Summary())
			}
		})
	}
}

func TestValidateName(t *testing.T) {
	valid := []string{"a", "0", "release-2025", "db_migration", "a-_-b", "9lives"}
	invalid := []string{"", "-a", "_a", "A", "Release", "a.b", "a/b", "../x", "..", ".", "a b", "a\n", "é", ".hidden", "a\x00"}
	for _, n := range valid {
		if err := ValidateName(n); err != nil {
			t.Errorf("ValidateName(%q) = %v", n, err)
		}
	}
	for _, n := range invalid {
		err := ValidateName(n)
		want := fmt.Sprintf("invalid plan name %q: use only lowercase letters, digits, '-' and '_', starting with a letter or digit", n)
		if err == nil || err.Error() != want || !errors.Is(err, ErrInvalid) {
			t.Errorf("ValidateName(%q) = %v, want %q (ErrInvalid)", n, err, want)
		}
	}
}
