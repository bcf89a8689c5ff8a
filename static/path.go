package static

import "strings"

// refusePath returns why rel may not be served, or "" when it may. os.Root
// already keeps every open inside the root; these rules refuse up front, as
// 404, the request paths that only an attempt to escape it or to confuse a
// later layer would send:
//
//   - ".." segments: the server resolves dot segments before mapping a URI
//     to a path, so one that is still here tries to climb out;
//   - absolute paths;
//   - backslashes, which are separators on Windows and in some proxies;
//   - NUL bytes, which end a path in C and so in the system call.
//
// Percent-encoded forms (%2e%2e, %2f, %5c, %00) need no rule of their own:
// they are decoded before the path reaches this package, and a path that
// was not decoded names a file with '%' in its name.
func refusePath(rel string) string {
	if strings.HasPrefix(rel, "/") {
		return "absolute path"
	}
	for i := 0; i < len(rel); i++ {
		switch rel[i] {
		case 0:
			return "NUL byte"
		case '\\':
			return "backslash"
		case '.':
			if i+1 < len(rel) && rel[i+1] == '.' &&
				(i == 0 || rel[i-1] == '/') &&
				(i+2 == len(rel) || rel[i+2] == '/') {
				return "'..' segment"
			}
		}
	}
	return ""
}
