package tomlpos

import "testing"

// FuzzParse asserts the parsers never panic and that a successful parse
// yields positions inside the document.
func FuzzParse(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte(`{"a": [1, {"b": null}]}`))
	f.Add([]byte("[[a.b]]\nc = { d = [[1], []] }\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, parse := range []func(string, []byte) (*Node, error){ParseTOML, ParseJSON} {
			root, err := parse("f", data)
			if err != nil {
				if root != nil {
					t.Fatal("tree and error together")
				}
				continue
			}
			var walk func(n *Node)
			walk = func(n *Node) {
				if n.Pos.Line < 1 || n.Pos.Col < 1 {
					t.Fatalf("bad position %v", n.Pos)
				}
				for _, c := range n.Fields {
					walk(c)
				}
				for _, c := range n.Items {
					walk(c)
				}
			}
			walk(root)
			_ = root.Value()
		}
	})
}
