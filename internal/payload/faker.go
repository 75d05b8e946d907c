package payload

import (
	"encoding/json"
	"sort"
	"strings"
	"sync"

	"github.com/brianvoe/gofakeit/v7"
)

// FakerPrefix marks a template generator served by gofakeit, the fake-data
// library xk6-faker uses: `_type: faker.email`, `_type: faker.city`, ...
const FakerPrefix = "faker."

var fakerNames = sync.OnceValue(func() []string {
	names := make([]string, 0, len(gofakeit.FuncLookups))
	for name := range gofakeit.FuncLookups {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
})

// FakerNames are the gofakeit generators a template may name.
func FakerNames() []string { return fakerNames() }

// FakerParams are the parameters of a gofakeit generator (as template
// keys: with a leading underscore); ok is false for an unknown name.
func FakerParams(name string) (params []string, ok bool) {
	info := gofakeit.GetFuncLookup(name)
	if info == nil {
		return nil, false
	}
	for _, p := range info.Params {
		params = append(params, "_"+p.Field)
	}
	return params, true
}

// fakerGen renders one gofakeit generator as JSON.
type fakerGen struct {
	info   *gofakeit.Info
	params gofakeit.MapParams
}

func newFakerGen(name string, params map[string]string) (*fakerGen, error) {
	info := gofakeit.GetFuncLookup(name)
	if info == nil {
		return nil, errUnknownFaker(name)
	}
	mp := gofakeit.MapParams{}
	for k, v := range params {
		mp[strings.TrimPrefix(k, "_")] = []string{v}
	}
	return &fakerGen{info: info, params: mp}, nil
}

type errUnknownFaker string

func (e errUnknownFaker) Error() string { return "unknown faker generator " + string(e) }

func (g *fakerGen) render(buf []byte, f *gofakeit.Faker) []byte {
	v, err := g.info.Generate(f, &g.params, g.info)
	if err != nil {
		return append(buf, "null"...)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return append(buf, "null"...)
	}
	return append(buf, b...)
}
