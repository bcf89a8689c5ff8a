package static

import "testing"

// The behaviour tests again, over every other way a FileServer opens
// files: each must give the same answers, statuses and log lines.
func TestBehaviourOverEveryOpener(t *testing.T) {
	behaviour := []struct {
		name string
		test func(*testing.T)
	}{
		{"ServeFileHeaders", TestServeFileHeaders},
		{"Head", TestHead},
		{"ContentType", TestContentType},
		{"DotFilesAreServed", TestDotFilesAreServed},
		{"Methods", TestMethods},
		{"NotFound", TestNotFound},
		{"ClosedRootIs500", TestClosedRootIs500},
		{"EmptyFile", TestEmptyFile},
		{"ConditionalRequests", TestConditionalRequests},
		{"DirectoryRedirect", TestDirectoryRedirect},
		{"IndexFiles", TestIndexFiles},
		{"DirectoryWithoutIndexIsForbidden", TestDirectoryWithoutIndexIsForbidden},
		{"UnreadableFileIsForbidden", TestUnreadableFileIsForbidden},
		{"ServePathWithAlias", TestServePathWithAlias},
		{"Lookup", TestLookup},
		{"SingleRange", TestSingleRange},
		{"RangeOfLargerFile", TestRangeOfLargerFile},
		{"MultipleRanges", TestMultipleRanges},
		{"TraversalRaw", TestTraversalRaw},
		{"TraversalServePath", TestTraversalServePath},
		{"Symlinks", TestSymlinks},
		{"FIFO", TestFIFO},
		{"BodyWithoutReadFrom", TestBodyWithoutReadFrom},
	}
	variants := []fixtureVariant{
		{name: "open file cache", options: func(t testing.TB, opts *Options) {
			opts.OpenFileCache = NewOpenFileCache(100, 0)
			t.Cleanup(func() { opts.OpenFileCache.Close() })
		}},
		{name: "open file cache checked on every use", options: func(t testing.TB, opts *Options) {
			opts.OpenFileCache = NewOpenFileCache(100, 0)
			opts.OpenFileCacheValid = -1
			t.Cleanup(func() { opts.OpenFileCache.Close() })
		}},
		{name: "open file cache with errors", options: func(t testing.TB, opts *Options) {
			opts.OpenFileCache = NewOpenFileCache(100, 0)
			opts.OpenFileCacheErrors = true
			t.Cleanup(func() { opts.OpenFileCache.Close() })
		}},
	}
	if v, ok := osRootVariant(); ok {
		variants = append(variants, v)
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			variant = v
			defer func() { variant = fixtureVariant{} }()
			for _, b := range behaviour {
				t.Run(b.name, b.test)
			}
		})
	}
}
