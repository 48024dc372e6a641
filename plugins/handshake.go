package plugins

import (
	"context"
	"strconv"
	"strings"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	pluginpb "github.com/skillmux/skillmux/plugins/proto"
)

// ProtocolVersion is the version of the source plugin protocol this
// package speaks: the 1 of skillmux.plugin.v1 in plugins/proto. It is the
// application protocol version of go-plugin's handshake line.
const ProtocolVersion = 1

// protocolVersions are the versions this package speaks, as a host and
// as a plugin.
var protocolVersions = []int{ProtocolVersion}

// The magic cookie tells a plugin that skillmux started it. It is not a
// secret, only a way for a plugin run by hand to say so.
const (
	cookieKey   = "SKILLMUX_SOURCE_PLUGIN"
	cookieValue = "d1c6a3f0-skillmux-source-plugin"
)

// pluginName is the name under which the one go-plugin plugin of a
// source plugin is dispensed.
const pluginName = "source"

func handshake() plugin.HandshakeConfig {
	return plugin.HandshakeConfig{ProtocolVersion: ProtocolVersion, MagicCookieKey: cookieKey, MagicCookieValue: cookieValue}
}

// grpcPlugin is go-plugin's view of a source plugin: on the plugin's side
// it registers srv, on skillmux's it makes a client.
type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	srv pluginpb.SkillSourceServer // nil on skillmux's side
}

var _ plugin.GRPCPlugin = (*grpcPlugin)(nil)

func (p *grpcPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	pluginpb.RegisterSkillSourceServer(s, p.srv)
	return nil
}

func (p *grpcPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return pluginpb.NewSkillSourceClient(c), nil
}

func pluginSets(srv pluginpb.SkillSourceServer) map[int]plugin.PluginSet {
	out := map[int]plugin.PluginSet{}
	for _, v := range protocolVersions {
		out[v] = plugin.PluginSet{pluginName: &grpcPlugin{srv: srv}}
	}
	return out
}

// versionList renders versions as "1" or "1, 2".
func versionList[T int | uint32](versions []T) string {
	s := make([]string, len(versions))
	for i, v := range versions {
		s[i] = strconv.Itoa(int(v))
	}
	return strings.Join(s, ", ")
}
