package kafkaconf

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kbench/kbench/internal/userr"
)

func TestParsePairs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		pairs   []string
		want    []Prop
		wantErr []string // substrings, each must appear
	}{
		{"simple", []string{"acks=all", "linger.ms=5"},
			[]Prop{{"acks", "all", "--producer-props"}, {"linger.ms", "5", "--producer-props"}}, nil},
		{"value with equals splits on the first", []string{`sasl.jaas.config=org.Foo required user="a=b";`},
			[]Prop{{"sasl.jaas.config", `org.Foo required user="a=b";`, "--producer-props"}}, nil},
		{"empty value kept", []string{"client.id="}, []Prop{{"client.id", "", "--producer-props"}}, nil},
		{"key trimmed", []string{" acks =1"}, []Prop{{"acks", "1", "--producer-props"}}, nil},
		{"none", nil, []Prop{}, nil},
		{"missing equals", []string{"acks=1", "linger.ms"},
			nil, []string{`--producer-props: "linger.ms": not a key=value pair (no '=')`}},
		{"empty key", []string{"=5"}, nil, []string{`--producer-props: "=5": empty property name before '='`}},
		{"every error reported", []string{"a", "=b"}, nil, []string{`"a": not a key=value`, `"=b": empty property name`}},
		{"secret item not echoed", []string{"sasl.jaas.config:secretstuff"}, nil, []string{"[redacted item]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParsePairs(tt.pairs, "--producer-props")
			if tt.wantErr != nil {
				requireUserErr(t, err, tt.wantErr...)
				if strings.Contains(err.Error(), "secretstuff") {
					t.Errorf("error leaks a secret: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParsePairs: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParsePairs = %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestReadFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want []Prop // Source is "f:<line>"
	}{
		{"separators", "a=1\nb:2\nc 3\nd = 4\ne : 5\nf\t6\n",
			[]Prop{{"a", "1", "f:1"}, {"b", "2", "f:2"}, {"c", "3", "f:3"}, {"d", "4", "f:4"}, {"e", "5", "f:5"}, {"f", "6", "f:6"}}},
		{"comments and blanks", "# c\n! c\n\n   \n  # indented comment\nacks=all\n",
			[]Prop{{"acks", "all", "f:6"}}},
		{"leading whitespace", "   \tlinger.ms=5", []Prop{{"linger.ms", "5", "f:1"}}},
		{"value keeps trailing space and inner separators", "k = a=b:c d \n", []Prop{{"k", "a=b:c d ", "f:1"}}},
		{"continuation", "bootstrap.servers=a:9092,\\\n    b:9092,\\\n\tc:9092\nacks=1\n",
			[]Prop{{"bootstrap.servers", "a:9092,b:9092,c:9092", "f:1"}, {"acks", "1", "f:4"}}},
		{"continuation line starting with # is data", "k=a\\\n#b\n", []Prop{{"k", "a#b", "f:1"}}},
		{"escaped backslash does not continue", "k=a\\\\\nj=b\n", []Prop{{"k", `a\`, "f:1"}, {"j", "b", "f:2"}}},
		{"comment never continues", "# x\\\nk=v\n", []Prop{{"k", "v", "f:2"}}},
		{"backslash at end of file dropped", "k=v\\", []Prop{{"k", "v", "f:1"}}},
		{"escapes", `k=a\tb\nc\u00e9\=\:\\\q` + "\n", []Prop{{"k", "a\tb\nc\u00e9=:\\q", "f:1"}}},
		{"surrogate pair", `k=\ud83d\ude00`, []Prop{{"k", "\U0001F600", "f:1"}}},
		{"escaped separator in key", `a\=b=c`, []Prop{{"a=b", "c", "f:1"}}},
		{"key only", "flag\n", []Prop{{"flag", "", "f:1"}}},
		{"CRLF and CR line ends", "a=1\r\nb=2\rc=3", []Prop{{"a", "1", "f:1"}, {"b", "2", "f:2"}, {"c", "3", "f:3"}}},
		{"duplicates kept in order", "a=1\na=2\n", []Prop{{"a", "1", "f:1"}, {"a", "2", "f:2"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := writeFile(t, tt.text)
			got, err := ReadFile(path)
			if err != nil {
				t.Fatalf("ReadFile: %v", err)
			}
			for i := range tt.want {
				tt.want[i].Source = strings.Replace(tt.want[i].Source, "f:", path+":", 1)
			}
			if len(got) == 0 && len(tt.want) == 0 {
				return
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ReadFile =\n%#v\nwant\n%#v", got, tt.want)
			}
		})
	}
}

func TestReadFileErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		text    string
		wantErr []string
	}{
		{"malformed unicode", "ok=1\nk=\\u12x4\n", []string{`:2: malformed \uXXXX escape "\\u12x4"`}},
		{"short unicode", `k=\u12`, []string{`:1: malformed \uXXXX escape`}},
		{"empty key", "=v\n:w\n", []string{":1: empty property name", ":2: empty property name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ReadFile(writeFile(t, tt.text))
			requireUserErr(t, err, tt.wantErr...)
		})
	}
	t.Run("missing file", func(t *testing.T) {
		t.Parallel()
		_, err := ReadFile(filepath.Join(t.TempDir(), "nope.properties"))
		requireUserErr(t, err, "read properties file", "nope.properties")
	})
}

func writeFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "client.properties")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// requireUserErr fails unless err is a user error containing every want.
func requireUserErr(t *testing.T, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want one containing %q", want)
	}
	if !userr.Is(err) {
		t.Errorf("error is not marked with userr: %v", err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q\ndoes not contain %q", err, w)
		}
	}
}
