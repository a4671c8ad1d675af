//go:build linux || darwin

package execplan

import "strconv"

// idString spells a file identity: "dev:ino:size:mtime:ctime".
func idString(dev, ino uint64, size, mtime, ctime int64) string {
	b := strconv.AppendUint(nil, dev, 10)
	b = append(b, ':')
	b = strconv.AppendUint(b, ino, 10)
	for _, v := range []int64{size, mtime, ctime} {
		b = append(b, ':')
		b = strconv.AppendInt(b, v, 10)
	}
	return string(b)
}
