package index_test

import (
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/index"
)

// sym is the part of a symbol a test checks; empty fields are not checked.
type sym struct {
	name, kind, parent, sig, doc string
	line, end                    int
}

func TestSymbolsPerLanguage(t *testing.T) {
	cases := []struct {
		name, path, src string
		lang            string
		want            []sym
		imports         []string
	}{
		{
			name: "go via go/parser", path: "pkg/greet.go", lang: "go",
			src: `package greet

import (
	"fmt"
	"example.com/m/util"
)

// Greeter says hello.
//
// More detail that is not the first paragraph.
type Greeter struct {
	Name string
}

// Speaker speaks.
type Speaker interface {
	// Speak says something.
	Speak(to string) error
}

// Max is the longest greeting.
const Max = 80

// Greet returns a greeting
// for name.
func (g *Greeter) Greet(name string) (string, error) {
	return fmt.Sprint(name), nil
}

func helper[T any](x T) T { return x }
`,
			want: []sym{
				{name: "Greeter", kind: "struct", sig: "type Greeter struct", doc: "Greeter says hello.", line: 11, end: 13},
				{name: "Speaker", kind: "interface", sig: "type Speaker interface", doc: "Speaker speaks."},
				{name: "Speak", kind: "method", parent: "Speaker", sig: "Speak(to string) error", doc: "Speak says something."},
				{name: "Max", kind: "const", sig: "const Max", doc: "Max is the longest greeting."},
				{name: "Greet", kind: "method", parent: "Greeter", sig: "func (g *Greeter) Greet(name string) (string, error)", doc: "Greet returns a greeting for name.", line: 26, end: 28},
				{name: "helper", kind: "function", sig: "func helper[T any](x T) T"},
			},
			imports: []string{"fmt", "example.com/m/util"},
		},
		{
			name: "python", path: "app/models.py", lang: "python",
			src: `import os
from .db import session

# A user of the system.
class User(Base):
    """A stored user.

    Longer text."""

    def full_name(self, sep=" "):
        return self.first + sep + self.last

    async def save(self):
        pass

def load(id):
    '''Load a user.'''
    return session.get(User, id)
`,
			want: []sym{
				{name: "User", kind: "class", sig: "class User(Base)", doc: "A stored user.", line: 5, end: 14},
				{name: "full_name", kind: "method", parent: "User", sig: `def full_name(self, sep=" ")`, line: 10, end: 11},
				{name: "save", kind: "method", parent: "User", sig: "async def save(self)"},
				{name: "load", kind: "function", doc: "Load a user.", line: 16, end: 18},
			},
			imports: []string{"os", ".db"},
		},
		{
			name: "javascript", path: "src/cart.js", lang: "javascript",
			src: `import { price } from './price.js';
const fs = require('fs');

/** Sums a cart. */
export function total(items) {
  return items.reduce((a, b) => a + price(b), 0);
}

export const discount = (x) => x * 0.9;

// A shopping cart.
export class Cart {
  constructor(items) {
    this.items = items;
  }
  add(item) {
    if (item) {
      this.items.push(item);
    }
  }
}
`,
			want: []sym{
				{name: "total", kind: "function", sig: "export function total(items)", doc: "Sums a cart.", line: 5, end: 7},
				{name: "discount", kind: "function"},
				{name: "Cart", kind: "class", doc: "A shopping cart.", line: 12, end: 21},
				{name: "constructor", kind: "method", parent: "Cart"},
				{name: "add", kind: "method", parent: "Cart", sig: "add(item)", line: 16, end: 20},
			},
			imports: []string{"./price.js", "fs"},
		},
		{
			name: "typescript", path: "src/api.ts", lang: "typescript",
			src: `import type { User } from "./user";
export interface Client {
  get(id: string): Promise<User>;
}
export type Id = string;
export enum Mode { A, B }
export async function fetchUser(id: Id): Promise<User> {
  return {} as User;
}
`,
			want: []sym{
				{name: "Client", kind: "interface"},
				{name: "Id", kind: "type", sig: "export type Id = string"},
				{name: "Mode", kind: "enum"},
				{name: "fetchUser", kind: "function", sig: "export async function fetchUser(id: Id): Promise<User>"},
			},
			imports: []string{"./user"},
		},
		{
			name: "rust", path: "src/lib.rs", lang: "rust",
			src: `mod parser;
use crate::parser::Token;

/// A lexer.
/// Second line.
pub struct Lexer {
    pos: usize,
}

impl Lexer {
    /// Makes a lexer.
    pub fn new() -> Self {
        Lexer { pos: 0 }
    }
}

pub trait Scan {
    fn scan(&mut self) -> Option<Token>;
}

pub const MAX_LEN: usize = 10;
`,
			want: []sym{
				{name: "Lexer", kind: "struct", doc: "A lexer. Second line.", sig: "pub struct Lexer", line: 6, end: 8},
				{name: "Lexer", kind: "impl", line: 10, end: 15},
				{name: "new", kind: "method", parent: "Lexer", doc: "Makes a lexer.", sig: "pub fn new() -> Self"},
				{name: "Scan", kind: "trait"},
				{name: "scan", kind: "method", parent: "Scan", sig: "fn scan(&mut self) -> Option<Token>"},
				{name: "MAX_LEN", kind: "const"},
			},
			imports: []string{"parser", "crate::parser::Token"},
		},
		{
			name: "java", path: "src/main/java/com/acme/Shop.java", lang: "java",
			src: `package com.acme;

import java.util.List;
import com.acme.model.Item;

/**
 * A shop.
 */
public class Shop {
    private final List<Item> items;

    /** Adds an item. */
    @Override
    public void add(Item item) {
        if (item != null) {
            items.add(item);
        }
    }

    public Shop(List<Item> items) {
        this.items = items;
    }
}
`,
			want: []sym{
				{name: "Shop", kind: "class", doc: "A shop.", sig: "public class Shop", line: 9, end: 23},
				{name: "add", kind: "method", parent: "Shop", doc: "Adds an item.", sig: "public void add(Item item)", line: 14, end: 18},
				{name: "Shop", kind: "method", parent: "Shop"},
			},
			imports: []string{"java.util.List", "com.acme.model.Item"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, tc.path, tc.src)
			idx, err := index.Scan(dir, index.Limits{MaxFiles: 10, MaxFileBytes: 1 << 20})
			if err != nil {
				t.Fatal(err)
			}
			f, ok := idx.File(tc.path)
			if !ok {
				t.Fatalf("%s not indexed", tc.path)
			}
			if f.Lang != tc.lang {
				t.Errorf("lang %q, want %q", f.Lang, tc.lang)
			}
			if len(f.Symbols) != len(tc.want) {
				t.Errorf("got %d symbols, want %d:\n%s", len(f.Symbols), len(tc.want), dump(f.Symbols))
			}
			for i, w := range tc.want {
				if i >= len(f.Symbols) {
					break
				}
				g := f.Symbols[i]
				if g.Name != w.name || g.Kind != w.kind || g.Parent != w.parent ||
					(w.sig != "" && g.Signature != w.sig) || (w.doc != "" && g.Doc != w.doc) ||
					(w.line != 0 && (g.Line != w.line || g.EndLine != w.end)) {
					t.Errorf("symbol %d = %+v, want %+v", i, g, w)
				}
			}
			if strings.Join(f.Imports, ",") != strings.Join(tc.imports, ",") {
				t.Errorf("imports %q, want %q", f.Imports, tc.imports)
			}
			if len(f.Outline) < len(tc.want) || f.Outline[0].Kind != "file" {
				t.Errorf("outline %+v", f.Outline)
			}
		})
	}
}

func dump(s []index.Symbol) string {
	var b strings.Builder
	for _, x := range s {
		b.WriteString("  ")
		b.WriteString(x.Kind + " " + x.Name + " parent=" + x.Parent + " sig=" + x.Signature + " doc=" + x.Doc + "\n")
	}
	return b.String()
}

func TestGoOutline(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.go", "package a\n\nimport \"fmt\"\n\ntype T struct {\n\tX int\n\tfmt.Stringer\n}\n\nfunc (T) M() {}\n")
	idx, err := index.Scan(dir, index.Limits{MaxFiles: 10, MaxFileBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := idx.File("a.go")
	var got []string
	for _, n := range f.Outline {
		got = append(got, strings.TrimSpace(n.Kind+" "+n.Name))
	}
	want := "file a,import fmt,struct T,field X,embedded fmt.Stringer,method M"
	if strings.Join(got, ",") != want {
		t.Errorf("outline %q, want %q", strings.Join(got, ","), want)
	}
	if f.Outline[3].Parent != 3 || f.Outline[1].Parent != 1 {
		t.Errorf("outline parents %+v", f.Outline)
	}
}
