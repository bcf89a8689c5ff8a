package conf

import (
	"os"
	"path"
	"sort"
	"strings"
)

// glob expands an include mask as glob(3) does when NGINX calls it with no
// flags, which differs from filepath.Glob in ways a configuration notices:
//
//   - a name that starts with "." is matched only by a pattern component
//     that starts with "." (so sites-enabled/* skips editors' .swp files),
//     and such a component also matches "." and "..";
//   - "[!...]" negates a class, as "[^...]" does;
//   - a malformed component (an unterminated "[") matches only itself;
//   - directories are returned like files (NGINX then fails to read them).
//
// The names come back sorted bytewise, as glob(3) sorts them in NGINX's C
// locale. A mask that matches nothing gives no names and no error, as
// NGINX asks for.
func glob(pattern string) []string {
	parts := strings.Split(pattern, "/")
	paths := []string{""}
	for i, part := range parts {
		var next []string
		for _, pre := range paths {
			if !hasGlobMeta(part) {
				next = append(next, joinPart(pre, i, globUnescape(part)))
				continue
			}
			dir := pre
			switch {
			case i == 0:
				dir = "."
			case pre == "":
				dir = "/"
			}
			for _, name := range globNames(dir, part) {
				next = append(next, joinPart(pre, i, name))
			}
		}
		paths = next
	}
	var out []string
	for _, p := range paths {
		// Components written without wildcards were taken on trust; keep
		// what exists, as glob(3) does (with lstat: a dangling link stays).
		if _, err := os.Lstat(p); err == nil {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// joinPart appends component i to the path built so far, keeping the
// pattern's own spelling (an absolute pattern's first component is "").
func joinPart(pre string, i int, name string) string {
	if i == 0 {
		return name
	}
	return pre + "/" + name
}

// globNames lists the entries of dir that match one pattern component.
func globNames(dir, part string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // glob(3) without GLOB_ERR skips unreadable directories
	}
	names := make([]string, 0, len(entries)+2)
	dotPattern := strings.HasPrefix(part, ".") || strings.HasPrefix(part, `\.`)
	if dotPattern {
		names = append(names, ".", "..") // readdir returns them; os.ReadDir does not
	}
	for _, e := range entries {
		names = append(names, e.Name())
	}
	var out []string
	for _, name := range names {
		if strings.HasPrefix(name, ".") && !dotPattern {
			continue
		}
		if globMatch(part, name) {
			out = append(out, name)
		}
	}
	return out
}

// globMatch matches one name against one component in fnmatch's syntax.
func globMatch(part, name string) bool {
	var b strings.Builder
	for i := 0; i < len(part); i++ {
		c := part[i]
		b.WriteByte(c)
		switch {
		case c == '\\' && i+1 < len(part):
			i++
			b.WriteByte(part[i])
		case c == '[' && i+1 < len(part) && part[i+1] == '!':
			b.WriteByte('^')
			i++
		}
	}
	ok, err := path.Match(b.String(), name)
	if err != nil {
		return globUnescape(part) == name
	}
	return ok
}

// hasGlobMeta reports whether a component has an unquoted wildcard.
func hasGlobMeta(part string) bool {
	for i := 0; i < len(part); i++ {
		switch part[i] {
		case '\\':
			i++
		case '*', '?', '[':
			return true
		}
	}
	return false
}

// globUnescape removes the backslashes that quote characters in a
// component without wildcards.
func globUnescape(part string) string {
	if !strings.Contains(part, `\`) {
		return part
	}
	var b strings.Builder
	for i := 0; i < len(part); i++ {
		if part[i] == '\\' && i+1 < len(part) {
			i++
		}
		b.WriteByte(part[i])
	}
	return b.String()
}
