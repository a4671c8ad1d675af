package policy

// fsTrie indexes fs rules by the components of their lexical path, so a
// decision walks the key once instead of scanning every rule: the cost is
// one map lookup per component of the target, independent of rule count.
type fsTrie struct {
	root trieNode
}

type trieNode struct {
	children map[string]*trieNode
	// rule is the index of the last rule whose path ends here, -1 if none.
	// Inserting in order and overwriting makes "ties go to the last rule"
	// fall out of the structure.
	rule int
}

func newFsTrie() *fsTrie { return &fsTrie{root: trieNode{rule: -1}} }

// insert adds rule idx at key, a normal slash-separated path ("" = root).
func (t *fsTrie) insert(key string, idx int) {
	n := &t.root
	if key != "" {
		forEachComponent(key, func(c string) bool {
			child := n.children[c]
			if child == nil {
				if n.children == nil {
					n.children = map[string]*trieNode{}
				}
				child = &trieNode{rule: -1}
				n.children[c] = child
			}
			n = child
			return true
		})
	}
	n.rule = idx
}

// lookup returns the index of the most specific rule whose path is a
// component-wise prefix of key, or -1. It does not allocate.
func (t *fsTrie) lookup(key string) int {
	n := &t.root
	best := n.rule
	for key != "" {
		var c string
		i := indexSlash(key)
		if i < 0 {
			c, key = key, ""
		} else {
			c, key = key[:i], key[i+1:]
		}
		n = n.children[c]
		if n == nil {
			break
		}
		if n.rule >= 0 {
			best = n.rule
		}
	}
	return best
}

func indexSlash(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			return i
		}
	}
	return -1
}
