package docdex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// MCPProtocolVersion is the protocol version the client announces.
const MCPProtocolVersion = "2025-11-25"

var jsonUnmarshal = json.Unmarshal

// rpcRequest is a JSON-RPC 2.0 request.
type rpcRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

// rpcResponse is a JSON-RPC 2.0 response.
type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// toolResult is the result of tools/call.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	IsError bool `json:"isError"`
}

// session returns the MCP session of the client's root, initializing one
// when there is none yet.
func (c *Client) session(ctx context.Context) (string, error) {
	c.state.mu.Lock()
	s, ok := c.state.sessions[c.o.Root]
	c.state.mu.Unlock()
	if ok {
		return s, nil
	}
	return c.MCPInitialize(ctx)
}

// MCPInitialize runs the MCP initialize method and keeps the session id
// the daemon returns (mcp-session-id or x-docdex-mcp-session) for later
// calls. It returns the session id, empty when the daemon gave none (the
// client then passes project_root in every call).
func (c *Client) MCPInitialize(ctx context.Context) (string, error) {
	params := map[string]any{"protocolVersion": MCPProtocolVersion, "capabilities": map[string]any{}}
	if c.o.Root != "" {
		params["workspace_root"] = c.o.Root
	}
	if c.o.Token != "" {
		params["auth_token"] = c.o.Token
	}
	if c.o.AgentID != "" {
		params["agent_id"] = c.o.AgentID
	}
	resp, _, err := c.rpc(ctx, "initialize", "initialize", params, "")
	if err != nil {
		return "", err
	}
	s := resp.header.Get(HeaderMCPSession)
	if s == "" {
		s = resp.header.Get(HeaderMCPSession2)
	}
	c.state.mu.Lock()
	c.state.sessions[c.o.Root] = s
	c.state.mu.Unlock()
	return s, nil
}

// rpc sends one JSON-RPC call with recovery (waits, initialize, rebuild)
// and returns the HTTP response and the result.
func (c *Client) rpc(ctx context.Context, op, method string, params any, session string) (response, json.RawMessage, error) {
	var result json.RawMessage
	send := func(ctx context.Context, r request) (response, error) {
		r.body = rpcRequest{JSONRPC: "2.0", ID: c.state.nextID.Add(1), Method: method, Params: params}
		resp, err := c.roundTrip(ctx, r)
		if err != nil {
			return resp, err
		}
		var rr rpcResponse
		if err := json.Unmarshal(resp.body, &rr); err != nil {
			return resp, &Error{Op: op, Status: resp.status, Message: "not a JSON-RPC response: " + err.Error(), sentinel: ErrServer}
		}
		if rr.Error != nil {
			return resp, rpcError(op, rr.Error.Code, rr.Error.Message, rr.Error.Data)
		}
		result = rr.Result
		return resp, nil
	}
	r := request{method: "POST", path: "/v1/mcp", header: http.Header{}}
	if session != "" {
		r.header.Set(HeaderMCPSession, session)
		r.header.Set(HeaderMCPSession2, session)
	}
	resp, err := c.call(ctx, r, send)
	// call reports the request as "POST /v1/mcp"; name the method or tool.
	var de *Error
	if errors.As(err, &de) && de.Op != op {
		de.Op = op
	}
	return resp, result, err
}

// ListTools runs tools/list.
func (c *Client) ListTools(ctx context.Context) ([]Tool, error) {
	s, err := c.session(ctx)
	if err != nil {
		return nil, err
	}
	_, res, err := c.rpc(ctx, "tools/list", "tools/list", map[string]any{}, s)
	if err != nil {
		return nil, err
	}
	var out struct {
		Tools []Tool `json:"tools"`
	}
	if err := json.Unmarshal(res, &out); err != nil {
		return nil, &Error{Op: "tools/list", Message: "unexpected answer: " + err.Error(), sentinel: ErrServer}
	}
	return out.Tools, nil
}

// CallTool runs tools/call for a tool and decodes the JSON document in
// the first text content into out (when out is not nil). A tool answer
// with isError gives an error wrapping ErrToolFailed with the tool's text.
func (c *Client) CallTool(ctx context.Context, name string, args map[string]any, out any) error {
	s, err := c.session(ctx)
	if err != nil {
		return err
	}
	if args == nil {
		args = map[string]any{}
	}
	if s == "" && c.o.Root != "" {
		args["project_root"] = c.o.Root
	}
	_, res, err := c.rpc(ctx, name, "tools/call", map[string]any{"name": name, "arguments": args}, s)
	if err != nil {
		return err
	}
	var tr toolResult
	if err := json.Unmarshal(res, &tr); err != nil {
		return &Error{Op: name, Message: "unexpected tool result: " + err.Error(), sentinel: ErrServer}
	}
	text := ""
	if len(tr.Content) > 0 {
		text = tr.Content[0].Text
	}
	if tr.IsError {
		return &Error{Op: name, Message: text, sentinel: ErrToolFailed}
	}
	if out == nil {
		return nil
	}
	if len(tr.Content) == 0 {
		return &Error{Op: name, Message: "tool result has no content", sentinel: ErrServer}
	}
	if err := json.Unmarshal([]byte(text), out); err != nil {
		return &Error{Op: name, Message: fmt.Sprintf("tool payload is not the expected JSON: %v", err), sentinel: ErrServer}
	}
	return nil
}
