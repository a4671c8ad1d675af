package policy

// fsTrie indexes fs rules by the components of their lexical path, so a
// decision walks the key once instead of scanning every rule: the cost is
// one child lookup per component of the target, independent of rule
// count.
type fsTrie struct {
	root trieNode
}

// smallFanout is the child count up to which a node scans a slice rather
// than hashing; comparing a few short names beats hashing them.
const smallFanout = 8

type trieNode struct {
	names []string
	kids  []*trieNode
	// big replaces names/kids once a node has more than smallFanout
	// children.
	big map[string]*trieNode
	// rule is the index of the last rule whose path ends here, -1 if none.
	// Inserting in order and overwriting makes "ties go to the last rule"
	// fall out of the structure.
	rule int
}

func newFsTrie() *fsTrie { return &fsTrie{root: trieNode{rule: -1}} }

func (n *trieNode) child(c string) *trieNode {
	if n.big != nil {
		return n.big[c]
	}
	for i, name := range n.names {
		if name == c {
			return n.kids[i]
		}
	}
	return nil
}

func (n *trieNode) add(c string) *trieNode {
	child := &trieNode{rule: -1}
	if n.big != nil {
		n.big[c] = child
		return child
	}
	n.names = append(n.names, c)
	n.kids = append(n.kids, child)
	if len(n.names) > smallFanout {
		n.big = make(map[string]*trieNode, len(n.names))
		for i, name := range n.names {
			n.big[name] = n.kids[i]
		}
		n.names, n.kids = nil, nil
	}
	return child
}

// insert adds rule idx at key, a normal slash-separated path ("" = root).
func (t *fsTrie) insert(key string, idx int) {
	n := &t.root
	if key != "" {
		forEachComponent(key, func(c string) bool {
			child := n.child(c)
			if child == nil {
				child = n.add(c)
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
	for key != "" && (n.big != nil || len(n.names) > 0) {
		var c string
		i := indexSlash(key)
		if i < 0 {
			c, key = key, ""
		} else {
			c, key = key[:i], key[i+1:]
		}
		n = n.child(c)
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
