// Package plugins runs third-party source plugins: programs, in any
// language, that serve Agent Skills to skillmux over gRPC, started and
// supervised with hashicorp/go-plugin. It is the only package of skillmux
// that imports go-plugin and gRPC.
//
// It has two sides.
//
// For plugin authors, Serve: implement sources.Source (and, to follow
// changes, sources.Watcher), then
//
//	func main() {
//		if err := plugins.Serve(ctx, src, nil); err != nil { ... }
//	}
//
// An author imports only sources and plugins. Authors in other languages
// speak the protocol in plugins/proto (skillsource.proto) directly; see
// examples/plugins.
//
// For skillmux, Source: a sources.Source (a sources.Watcher and an
// io.Closer too) that starts the plugin's command, lists its skills over
// gRPC and judges them as local ones are judged (sources.NewSkill), reads
// their files through it, and follows its watch events. The plugin runs
// with /dev/null as stdin, without skillmux's environment but for what the
// configuration gives it, its stdout kept from skillmux's, its stderr
// logged line by line tagged with its name, and it dies with skillmux
// (Pdeathsig on Linux; Serve watches its parent everywhere). Its start,
// up to the handshake, and every call have a deadline. A plugin that
// crashes, or that stops answering, is restarted with exponential backoff
// and given up after repeated crashes; while it is down its skills stay
// for a grace period, then leave the catalog (the listing fails with
// sources.ErrUnavailable) and come back with it. Whatever a plugin sends
// is checked: a bad name, an oversized file, a path out of its skill,
// invalid UTF-8 or a flood of events is a diagnostic, never a crash.
//
// A plugin's skills have no local folder. Their Skill.Dir, the base
// directory an agent is shown, is a folder in the user's cache named by a
// digest of the skill's content (content-addressed); the first read of
// any of the skill's files copies the whole skill there, read-only,
// within a size cap, and later reads are served from that copy.
package plugins
