package landlock

import (
	"encoding/json"
	"testing"

	"github.com/jp-policy/jp-policy/emit/internal/emittest"
)

func TestGolden(t *testing.T) {
	for _, sc := range emittest.Scenarios(t) {
		t.Run(sc.Name, func(t *testing.T) {
			m, err := Build(sc.Tool)
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.MarshalIndent(m, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			emittest.Golden(t, sc.Name+".json", sc.Root, append(b, '\n'))
		})
	}
}
