package index

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"strconv"
	"strings"
)

// extractGo parses a Go file (partial trees of files with syntax errors
// are used as far as they go).
func extractGo(f *File) {
	fset := token.NewFileSet()
	file, _ := parser.ParseFile(fset, f.Path, f.content, parser.ParseComments|parser.SkipObjectResolution)
	if file == nil {
		return
	}
	line := func(p token.Pos) int {
		if !p.IsValid() {
			return 0
		}
		return fset.Position(p).Line
	}
	out := &goOutline{nodes: []Node{{ID: 1, Kind: "file", Name: file.Name.Name, Line: 1, EndLine: line(file.End())}}}
	for _, imp := range file.Imports {
		if p, err := strconv.Unquote(imp.Path.Value); err == nil {
			f.Imports = append(f.Imports, p)
			out.add(1, "import", p, line(imp.Pos()), line(imp.End()))
		}
	}
	for _, decl := range file.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			s := Symbol{Name: d.Name.Name, Kind: "function", Doc: docText(d.Doc), Line: line(d.Pos()), EndLine: line(d.End())}
			if d.Recv != nil && len(d.Recv.List) > 0 {
				s.Kind, s.Parent = "method", recvName(d.Recv.List[0].Type)
			}
			sig := *d
			sig.Body, sig.Doc = nil, nil
			s.Signature = render(fset, &sig)
			f.Symbols = append(f.Symbols, s)
			out.add(1, s.Kind, s.Name, s.Line, s.EndLine)
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch sp := spec.(type) {
				case *ast.TypeSpec:
					kind := "type"
					switch sp.Type.(type) {
					case *ast.StructType:
						kind = "struct"
					case *ast.InterfaceType:
						kind = "interface"
					}
					doc := sp.Doc
					if doc == nil {
						doc = d.Doc
					}
					s := Symbol{Name: sp.Name.Name, Kind: kind, Doc: docText(doc), Line: line(sp.Pos()), EndLine: line(sp.End()), Signature: typeSignature(fset, sp)}
					f.Symbols = append(f.Symbols, s)
					id := out.add(1, kind, s.Name, s.Line, s.EndLine)
					goMembers(f, out, fset, id, sp, line)
				case *ast.ValueSpec:
					kind := "var"
					if d.Tok == token.CONST {
						kind = "const"
					}
					doc := sp.Doc
					if doc == nil {
						doc = d.Doc
					}
					for _, n := range sp.Names {
						if n.Name == "_" {
							continue
						}
						sig := kind + " " + n.Name
						if sp.Type != nil {
							sig += " " + render(fset, sp.Type)
						}
						s := Symbol{Name: n.Name, Kind: kind, Doc: docText(doc), Line: line(sp.Pos()), EndLine: line(sp.End()), Signature: sig}
						f.Symbols = append(f.Symbols, s)
						out.add(1, kind, n.Name, s.Line, s.EndLine)
					}
				}
			}
		}
	}
	f.Outline = out.nodes
}

// goMembers adds struct fields to the outline and interface methods to
// the symbols and outline.
func goMembers(f *File, out *goOutline, fset *token.FileSet, parent int, sp *ast.TypeSpec, line func(token.Pos) int) {
	var fields *ast.FieldList
	kind := "field"
	switch t := sp.Type.(type) {
	case *ast.StructType:
		fields = t.Fields
	case *ast.InterfaceType:
		fields, kind = t.Methods, "method"
	}
	if fields == nil {
		return
	}
	for _, fl := range fields.List {
		for _, n := range fl.Names {
			out.add(parent, kind, n.Name, line(fl.Pos()), line(fl.End()))
			if kind == "method" {
				f.Symbols = append(f.Symbols, Symbol{Name: n.Name, Kind: "method", Parent: sp.Name.Name, Doc: docText(fl.Doc),
					Signature: n.Name + strings.TrimPrefix(render(fset, fl.Type), "func"), Line: line(fl.Pos()), EndLine: line(fl.End())})
			}
		}
		if len(fl.Names) == 0 { // embedded
			out.add(parent, "embedded", render(fset, fl.Type), line(fl.Pos()), line(fl.End()))
		}
	}
}

type goOutline struct{ nodes []Node }

func (o *goOutline) add(parent int, kind, name string, line, end int) int {
	id := len(o.nodes) + 1
	o.nodes = append(o.nodes, Node{ID: id, Parent: parent, Kind: kind, Name: name, Line: line, EndLine: end})
	return id
}

func typeSignature(fset *token.FileSet, sp *ast.TypeSpec) string {
	head := "type " + sp.Name.Name
	if sp.TypeParams != nil {
		head += render(fset, sp.TypeParams)
	}
	if sp.Assign.IsValid() {
		head += " ="
	}
	switch sp.Type.(type) {
	case *ast.StructType:
		return head + " struct"
	case *ast.InterfaceType:
		return head + " interface"
	}
	return head + " " + render(fset, sp.Type)
}

func recvName(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.Ident:
			return t.Name
		default:
			return ""
		}
	}
}

func render(fset *token.FileSet, n any) string {
	var b bytes.Buffer
	if err := printer.Fprint(&b, fset, n); err != nil {
		return ""
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

func docText(g *ast.CommentGroup) string {
	if g == nil {
		return ""
	}
	return firstSentence(g.Text())
}
