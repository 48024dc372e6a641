package server_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/server"
	"github.com/skillmux/skillmux/sources/dirtree"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

// TestSkillGoneBeforeRefresh checks that a skill whose folder is removed
// after the catalog was read, before a refresh drops it (as within
// refresh.debounce), gets the same answer from every method that reads
// it, a tool error from the tools, and no line in the log above debug.
func TestSkillGoneBeforeRefresh(t *testing.T) {
	const want = "skill docx is gone: its SKILL.md was removed since the catalog was read"
	tool := func(name string, args map[string]any) func(*mcp.ClientSession) (string, error) {
		return func(cs *mcp.ClientSession) (string, error) {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
			if err != nil {
				return "", err
			}
			if !res.IsError || len(res.Content) != 1 {
				return "", errors.New("not one tool error")
			}
			tc, _ := res.Content[0].(*mcp.TextContent)
			if tc == nil {
				return "", errors.New("not text")
			}
			return tc.Text, nil
		}
	}
	tests := []struct {
		name string
		call func(*mcp.ClientSession) (string, error)
	}{
		{"skill", tool(server.SkillToolName, map[string]any{"name": "docx"})},
		{"skill_resource list", tool(server.SkillResourceToolName, map[string]any{"skill": "docx"})},
		{"skill_resource SKILL.md", tool(server.SkillResourceToolName, map[string]any{"skill": "docx", "path": "SKILL.md"})},
		{"skill_resource another file", tool(server.SkillResourceToolName, map[string]any{"skill": "docx", "path": "refs/styles.md"})},
		{"resources/read another file", readGone("skill://docx/refs/styles.md")},
		{"resources/read the whole skill", readGone("skill://docx/")},
		{"prompts/get", func(cs *mcp.ClientSession) (string, error) {
			_, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "docx"})
			var werr *jsonrpc.Error
			if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams {
				return "", errors.New("not -32602")
			}
			// Every -32602 error starts so; what follows is the same.
			return strings.TrimPrefix(werr.Message, "invalid params: "), nil
		}},
	}
	// The folder removed, or only its SKILL.md: the files left are no
	// longer a skill's.
	for _, gone := range []string{"docx", "docx/SKILL.md"} {
		for _, tt := range tests {
			t.Run(gone+"/"+tt.name, func(t *testing.T) {
				root := skillsDir(t)
				sourcetest.WriteFile(t, filepath.Join(root, "docx", "refs", "styles.md"), "# Styles\n")
				logs := &logBuffer{}
				srv := server.New(newResolver(t, dirtree.New(root, nil)), &server.Options{Logger: logs.logger()})
				cs := connect(t, srv, "2025-11-25", nil)
				if err := os.RemoveAll(filepath.Join(root, gone)); err != nil {
					t.Fatal(err)
				}
				got, err := tt.call(cs)
				if err != nil || got != want {
					t.Errorf("got %q, %v; want %q", got, err, want)
				}
				for line := range strings.Lines(logs.String()) {
					if strings.Contains(line, "level=ERROR") || strings.Contains(line, "level=WARN") {
						t.Errorf("logged: %s", line)
					}
				}
			})
		}
	}
}

// readGone reads uri and returns the message of the not-found error it
// must get, after the URI it starts with.
func readGone(uri string) func(*mcp.ClientSession) (string, error) {
	return func(cs *mcp.ClientSession) (string, error) {
		_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
		var werr *jsonrpc.Error
		if !errors.As(err, &werr) || werr.Code != -32002 {
			return "", fmt.Errorf("not -32002: %v", err)
		}
		msg, ok := strings.CutPrefix(werr.Message, uri+": ")
		if !ok {
			return "", fmt.Errorf("the message does not start with the URI: %s", werr.Message)
		}
		return msg, nil
	}
}
