package plugins

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/skillmux/skillmux/sources"
)

// ServeOptions configures Serve. A nil *ServeOptions means the defaults.
type ServeOptions struct {
	// Version is the plugin's own version, shown in skillmux's logs.
	Version string
	// ParentCheck is how often Serve checks that the process that started
	// the plugin is still its parent; default one second. When it is not
	// (skillmux died), Serve returns ErrHostGone.
	ParentCheck time.Duration
}

// Errors of Serve.
var (
	// ErrNotLaunched means the program was not started by skillmux: a
	// source plugin is not meant to be run by hand.
	ErrNotLaunched = errors.New("this program is a skillmux source plugin: skillmux starts it (sources: [{type: plugin, command: [...]}] in its configuration); it does nothing when run by hand")
	// ErrHostGone means the process that started the plugin has exited.
	ErrHostGone = errors.New("skillmux, which started this plugin, has exited")
)

// Serve serves src to the skillmux that started this program, until
// skillmux closes the connection (it returns nil), ctx is done (it
// returns ctx's error) or skillmux exits (ErrHostGone). A plugin's main
// calls it and returns:
//
//	func main() {
//		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
//		defer stop()
//		// skillmux stops a plugin with SIGTERM: a clean stop.
//		if err := plugins.Serve(ctx, mySource, nil); err != nil && !errors.Is(err, context.Canceled) {
//			fmt.Fprintln(os.Stderr, err)
//			os.Exit(1)
//		}
//	}
//
// src is listed each time skillmux lists the plugin, and its skills' files
// are read through their Skill.Files, within MaxFiles and MaxSkillBytes
// a skill; when src is a sources.Watcher, its Watch tells skillmux of
// changes. A Skill's id in the protocol is the name of its Dir's last
// folder (its Ref.Name when it has no Dir).
//
// Serve takes over the process's stdout, which belongs to the protocol:
// from its start, what the program writes to os.Stdout or os.Stderr is
// carried to skillmux's log, tagged with the plugin's name, one line at a
// time. Log to os.Stderr; a JSON line with "level" and "msg" (as
// log/slog's JSON handler writes) keeps its level, other lines are
// logged at info level. While Serve runs, os.Stdout and os.Stderr are
// pipes that go-plugin relays over the connection, and the lines written
// last before the process exits may never arrive: to say why a plugin
// exits (os.Exit, log.Fatal), write to the process's stderr itself, as
// the log package's and log/slog's default loggers do, or as
// os.NewFile(2, "stderr") does; skillmux quotes the last line written
// there when the plugin ends. Serve gives os.Stdout and os.Stderr back
// when it returns.
func Serve(ctx context.Context, src sources.Source, opts *ServeOptions) error {
	var o ServeOptions
	if opts != nil {
		o = *opts
	}
	if o.ParentCheck <= 0 {
		o.ParentCheck = time.Second
	}
	if os.Getenv(cookieKey) != cookieValue {
		return ErrNotLaunched
	}
	if offered := os.Getenv("PLUGIN_PROTOCOL_VERSIONS"); offered != "" && !offers(offered, ProtocolVersion) {
		// Announce our version all the same: skillmux refuses it with a
		// message that names the versions of both sides.
		fmt.Fprintf(os.Stderr, "this plugin speaks skillmux plugin protocol version %s; skillmux speaks %s\n", versionList(protocolVersions), offered)
	}
	ctx, cancel := context.WithCancel(ctx)

	// mu guards grpcServer and why: the server go-plugin serves, and the
	// reason Serve stopped it.
	var mu sync.Mutex
	var grpcServer *grpc.Server
	var why error
	stop := func(reason error) {
		mu.Lock()
		defer mu.Unlock()
		if why == nil {
			why = reason
		}
		if grpcServer != nil {
			grpcServer.Stop()
		}
	}
	var wg sync.WaitGroup
	defer func() {
		cancel() // ends the parent check
		wg.Wait()
	}()
	wg.Go(func() {
		ppid := os.Getppid()
		t := time.NewTicker(o.ParentCheck)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				stop(ctx.Err()) // a no-op once plugin.Serve has returned
				return
			case <-t.C:
				if os.Getppid() != ppid {
					stop(ErrHostGone)
					return
				}
			}
		}
	})
	// go-plugin points os.Stdout and os.Stderr at pipes of its own while
	// it serves, and leaves them so: what the program writes to them once
	// Serve has returned (why it stopped, before it exits) would be lost.
	stdout, stderr := os.Stdout, os.Stderr
	defer func() { os.Stdout, os.Stderr = stdout, stderr }()
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig:  handshake(),
		VersionedPlugins: pluginSets(newServer(src, o.Version)),
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			s := grpc.NewServer(append(opts, grpc.MaxRecvMsgSize(1<<20))...)
			mu.Lock()
			grpcServer = s
			stopped := why != nil
			mu.Unlock()
			if stopped {
				s.Stop()
			}
			return s
		},
		// go-plugin's own messages, as JSON lines on the real stderr,
		// which skillmux reads and logs with their level.
		Logger: hclog.New(&hclog.LoggerOptions{Output: os.Stderr, Level: hclog.Warn, JSONFormat: true}),
	})
	mu.Lock()
	err := why
	if why == nil {
		why = errServed
	}
	mu.Unlock()
	return err
}

// errServed marks a Serve that has ended, so that stopping it then
// changes nothing.
var errServed = errors.New("served")

// offers reports whether a comma-separated list of versions holds v.
func offers(list string, v int) bool {
	return slices.ContainsFunc(strings.Split(list, ","), func(s string) bool {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		return err == nil && n == v
	})
}
