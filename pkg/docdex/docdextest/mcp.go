package docdextest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/codali-dev/codali/pkg/docdex"
)

// toolNames are the tools the fake lists and serves.
var toolNames = []string{docdex.ToolSymbols, docdex.ToolAST, docdex.ToolFiles, docdex.ToolStats, docdex.ToolMemoryRecall,
	docdex.ToolMemorySave, docdex.ToolGetProfile, docdex.ToolSavePreference, docdex.ToolTree, docdex.ToolOpen,
	docdex.ToolSearch, docdex.ToolWebResearch, docdex.ToolIndex, docdex.ToolImpactDiagnostics}

type rpcReq struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

func rpcResult(w http.ResponseWriter, id json.RawMessage, result any) {
	writeJSON(w, 200, map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func rpcErr(w http.ResponseWriter, id json.RawMessage, code int, msg string, data any) {
	e := map[string]any{"code": code, "message": msg}
	if data != nil {
		e["data"] = data
	}
	writeJSON(w, 200, map[string]any{"jsonrpc": "2.0", "id": id, "error": e})
}

// toolText answers a tool call with its payload as JSON text.
func toolText(w http.ResponseWriter, id json.RawMessage, payload any) {
	raw, _ := json.Marshal(payload)
	rpcResult(w, id, map[string]any{"content": []map[string]any{{"type": "text", "text": string(raw)}}, "isError": false})
}

func (s *Server) serveMCP(w http.ResponseWriter, r *http.Request, raw json.RawMessage) {
	var req rpcReq
	if err := json.Unmarshal(raw, &req); err != nil || req.JSONRPC != "2.0" || req.Method == "" {
		writeJSON(w, 200, map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32600, "message": "invalid request"}})
		return
	}
	var call struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	}
	name := "rpc:" + req.Method
	if req.Method == "tools/call" {
		_ = json.Unmarshal(req.Params, &call)
		name = "tool:" + call.Name
	}
	s.record(name, r, req.Params)
	if s.o.Token != "" && r.Header.Get("Authorization") != "Bearer "+s.o.Token {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	if f := s.fault(name, "POST /v1/mcp"); f != nil {
		switch {
		case f.RPCCode != 0:
			var data any
			if f.RetryAfterMS > 0 {
				data = map[string]any{"retry_after_ms": f.RetryAfterMS}
			}
			rpcErr(w, req.ID, f.RPCCode, "injected error", data)
		case f.ToolError != "":
			rpcResult(w, req.ID, map[string]any{"content": []map[string]any{{"type": "text", "text": f.ToolError}}, "isError": true})
		default:
			writeFault(w, f)
		}
		return
	}
	if req.Method == "initialize" {
		var p map[string]any
		_ = json.Unmarshal(req.Params, &p)
		root, _ := p["workspace_root"].(string)
		if root == "" {
			root, _ = p["project_root"].(string)
		}
		if p["protocolVersion"] == nil {
			rpcErr(w, req.ID, docdex.RPCInvalidParams, "protocolVersion is required", nil)
			return
		}
		if !s.noSession() {
			s.mu.Lock()
			s.nextSession++
			sid := fmt.Sprintf("sess-%d", s.nextSession)
			s.sessions[sid] = true
			s.mu.Unlock()
			w.Header().Set(docdex.HeaderMCPSession, sid)
			w.Header().Set(docdex.HeaderMCPSession2, sid)
		}
		rpcResult(w, req.ID, map[string]any{"protocolVersion": docdex.MCPProtocolVersion, "capabilities": map[string]any{"tools": map[string]any{}},
			"serverInfo": map[string]any{"name": "docdexd-fake", "version": "0.2.90"}, "workspace_root": root})
		return
	}
	if !s.repoOK(w, r, nil) {
		return
	}
	sid := r.Header.Get(docdex.HeaderMCPSession)
	if sid == "" {
		sid = r.Header.Get(docdex.HeaderMCPSession2)
	}
	s.mu.Lock()
	known := s.sessions[sid]
	s.mu.Unlock()
	if !known && call.Arguments["project_root"] == nil {
		rpcErr(w, req.ID, docdex.RPCInvalidParams, "no MCP session: call initialize or pass project_root", nil)
		return
	}
	switch req.Method {
	case "tools/list":
		var tools []map[string]any
		for _, n := range toolNames {
			tools = append(tools, map[string]any{"name": n, "description": n, "inputSchema": map[string]any{"type": "object"}})
		}
		rpcResult(w, req.ID, map[string]any{"tools": tools})
	case "tools/call":
		s.tool(w, req.ID, call.Name, call.Arguments)
	default:
		rpcErr(w, req.ID, docdex.RPCMethodNotFound, "unknown method "+req.Method, nil)
	}
}

func (s *Server) noSession() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.o.NoSession
}

func str(args map[string]any, k string) string {
	v, _ := args[k].(string)
	return v
}

func num(args map[string]any, k string, def int) int {
	if v, ok := args[k].(float64); ok && v > 0 {
		return int(v)
	}
	return def
}

func (s *Server) tool(w http.ResponseWriter, id json.RawMessage, name string, args map[string]any) {
	needPath := func() (string, bool) {
		p := str(args, "path")
		if p == "" {
			rpcErr(w, id, docdex.RPCInvalidParams, "path is required", nil)
			return "", false
		}
		return p, true
	}
	switch name {
	case docdex.ToolSymbols:
		p, ok := needPath()
		if !ok {
			return
		}
		s.mu.Lock()
		syms := append([]docdex.Symbol{}, s.Symbols[p]...)
		s.mu.Unlock()
		toolText(w, id, map[string]any{"file": p, "symbols": syms})
	case docdex.ToolAST:
		p, ok := needPath()
		if !ok {
			return
		}
		maxNodes := num(args, "max_nodes", 200)
		s.mu.Lock()
		nodes := append([]docdex.ASTNode{}, s.AST[p]...)
		s.mu.Unlock()
		total := len(nodes)
		if len(nodes) > maxNodes {
			nodes = nodes[:maxNodes]
		}
		toolText(w, id, map[string]any{"file": p, "nodes": nodes, "total_nodes": total, "truncated": total > len(nodes), "language": "go"})
	case docdex.ToolFiles:
		limit, offset := num(args, "limit", 100), num(args, "offset", 0)
		s.mu.Lock()
		var paths []string
		for p := range s.Files {
			paths = append(paths, p)
		}
		s.mu.Unlock()
		sort.Strings(paths)
		total := len(paths)
		paths = paths[min(offset, total):min(offset+limit, total)]
		res := []map[string]any{}
		for _, p := range paths {
			res = append(res, map[string]any{"doc_id": p, "rel_path": p, "kind": kind(p)})
		}
		toolText(w, id, map[string]any{"results": res, "total": total, "limit": limit, "offset": offset})
	case docdex.ToolStats:
		s.mu.Lock()
		size := 0
		for _, c := range s.Files {
			size += len(c)
		}
		body := map[string]any{"num_docs": len(s.Files), "index_size_bytes": size, "last_updated_epoch_ms": s.o.LastUpdated.UnixMilli(), "repo_root": s.o.Root}
		s.mu.Unlock()
		toolText(w, id, body)
	case docdex.ToolMemoryRecall:
		if str(args, "query") == "" {
			rpcErr(w, id, docdex.RPCInvalidParams, "query is required", nil)
			return
		}
		topK := num(args, "top_k", 5)
		s.mu.Lock()
		mem := append([]docdex.Memory{}, s.Memories...)
		// What was saved is recalled too, like the daemon does.
		for _, t := range s.saved {
			mem = append(mem, docdex.Memory{Content: t, Score: 1})
		}
		s.mu.Unlock()
		if len(mem) > topK {
			mem = mem[:topK]
		}
		toolText(w, id, map[string]any{"top_k": topK, "results": mem})
	case docdex.ToolMemorySave:
		text := str(args, "text")
		if text == "" {
			rpcErr(w, id, docdex.RPCInvalidParams, "text is required", nil)
			return
		}
		s.mu.Lock()
		s.saved = append(s.saved, text)
		n := len(s.saved)
		s.mu.Unlock()
		toolText(w, id, map[string]any{"id": fmt.Sprintf("mem-%d", n), "created_at": 1700000000000 + n})
	case docdex.ToolGetProfile:
		agent := str(args, "agent_id")
		s.mu.Lock()
		prefs := []docdex.Preference{}
		for _, p := range s.Preferences {
			if agent == "" || p.AgentID == agent {
				prefs = append(prefs, p)
			}
		}
		s.mu.Unlock()
		toolText(w, id, map[string]any{"agents": []map[string]any{{"agent_id": agent}}, "preferences": prefs})
	case docdex.ToolSavePreference:
		p := SavedPreference{AgentID: str(args, "agent_id"), Content: str(args, "content"), Category: str(args, "category")}
		switch p.Category {
		case docdex.CategoryStyle, docdex.CategoryTooling, docdex.CategoryConstraint, docdex.CategoryWorkflow:
		default:
			rpcErr(w, id, docdex.RPCInvalidParams, "category must be style, tooling, constraint or workflow", nil)
			return
		}
		if p.AgentID == "" || p.Content == "" {
			rpcErr(w, id, docdex.RPCInvalidParams, "agent_id and content are required", nil)
			return
		}
		s.mu.Lock()
		s.prefs = append(s.prefs, p)
		n := len(s.prefs)
		s.mu.Unlock()
		toolText(w, id, map[string]any{"request_id": fmt.Sprintf("pref-%d", n), "status": "queued"})
	case docdex.ToolTree:
		root := strings.Trim(str(args, "path"), "/.")
		s.mu.Lock()
		var lines []string
		for p := range s.Files {
			if root == "" || strings.HasPrefix(p, root+"/") {
				lines = append(lines, p)
			}
		}
		s.mu.Unlock()
		sort.Strings(lines)
		toolText(w, id, map[string]any{"root": str(args, "path"), "tree": strings.Join(lines, "\n")})
	case docdex.ToolOpen:
		p, ok := needPath()
		if !ok {
			return
		}
		content, found := s.file(p)
		if !found {
			rpcResult(w, id, map[string]any{"content": []map[string]any{{"type": "text", "text": "file not found: " + p}}, "isError": true})
			return
		}
		lines := strings.Split(content, "\n")
		start, end := num(args, "start_line", 1), num(args, "end_line", len(lines))
		end = min(end, len(lines))
		start = min(start, end)
		toolText(w, id, map[string]any{"path": p, "start_line": start, "end_line": end, "total_lines": len(lines),
			"content": strings.Join(lines[start-1:end], "\n")})
	case docdex.ToolSearch:
		if str(args, "query") == "" {
			rpcErr(w, id, docdex.RPCInvalidParams, "query is required", nil)
			return
		}
		toolText(w, id, s.search(str(args, "query"), num(args, "limit", 8)))
	case docdex.ToolWebResearch:
		rpcResult(w, id, map[string]any{"content": []map[string]any{{"type": "text", "text": "web research is disabled (DOCDEX_WEB_ENABLED is not 1)"}}, "isError": true})
	case docdex.ToolIndex:
		s.mu.Lock()
		s.rebuilds++
		s.mu.Unlock()
		toolText(w, id, map[string]any{"status": "ok", "action": "ingest"})
	case docdex.ToolImpactDiagnostics:
		toolText(w, id, s.diagnostics(str(args, "file")))
	default:
		rpcErr(w, id, docdex.RPCMethodNotFound, "unknown tool "+name, nil)
	}
}
