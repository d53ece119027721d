package tools

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/avenir-mcp/avenir/tools/internal/clientjson"
)

// A tool's arguments are read by avenir, not by the SDK: the SDK would check them against the
// input schema with messages that show Go (`<invalid reflect.Value>`, `map[a:1]`) and echo the
// input whole, and the schema, kept portable (one type per property), cannot say that an amount
// may be a number or a string. So each tool's argument struct is described once (argType), its
// input schema is written from that description, and the arguments of each call are read with
// it: every error names the argument, says what it must be in the words of the schema's
// description, and quotes at most maxQuoted characters of what was sent.
//
// The rules, for every tool:
//   - the arguments are an object (absent or null means no arguments);
//   - a key the tool does not take, or one given twice, is refused;
//   - null for an optional argument means it is absent; a required one must be given;
//   - a string is a JSON string; a whole number is an integer literal (not 1.5, not 1e3);
//   - an amount ([Amount]) is a JSON number or a string, its decimal text kept exactly;
//   - the confirmation code is read as text whatever JSON value it is, so that anything but a
//     live code gets the confirmation spec's sentence (§2.3), never a type error.

type argKind int

const (
	argString argKind = iota
	argBool
	argInt
	argAmount
	argCode // a confirmation code: any JSON value, read as text
	argPointer
	argSlice
	argStruct
)

// argType describes how one Go type is read from JSON arguments.
type argType struct {
	kind   argKind
	goType reflect.Type
	elem   *argType   // argPointer, argSlice
	fields []argField // argStruct, in declaration order
}

// argField is one member of an argument object.
type argField struct {
	name     string
	index    []int // reflect.Value.FieldByIndex
	required bool
	desc     string // the jsonschema tag: what the argument is, in the tool's words
	t        *argType
}

// field returns the member named name.
func (t *argType) field(name string) (*argField, bool) {
	for i := range t.fields {
		if t.fields[i].name == name {
			return &t.fields[i], true
		}
	}
	return nil, false
}

// names lists the members' names.
func (t *argType) names() []string {
	names := make([]string, len(t.fields))
	for i, f := range t.fields {
		names[i] = f.name
	}
	return names
}

var amountType = reflect.TypeFor[Amount]()

// argTypeFor describes t, which must be built of what arguments hold: structs (embedded ones
// flattened, as encoding/json does), strings, booleans, integers, amounts, pointers and slices.
// Anything else is a programming error, reported when the tool is registered.
func argTypeFor(t reflect.Type) (*argType, error) {
	if t == amountType {
		return &argType{kind: argAmount, goType: t}, nil
	}
	switch t.Kind() {
	case reflect.String:
		return &argType{kind: argString, goType: t}, nil
	case reflect.Bool:
		return &argType{kind: argBool, goType: t}, nil
	case reflect.Int, reflect.Int32, reflect.Int64:
		return &argType{kind: argInt, goType: t}, nil
	case reflect.Pointer:
		elem, err := argTypeFor(t.Elem())
		if err != nil {
			return nil, err
		}
		return &argType{kind: argPointer, goType: t, elem: elem}, nil
	case reflect.Slice:
		elem, err := argTypeFor(t.Elem())
		if err != nil {
			return nil, err
		}
		return &argType{kind: argSlice, goType: t, elem: elem}, nil
	case reflect.Struct:
		at := &argType{kind: argStruct, goType: t}
		if err := addFields(at, t, nil); err != nil {
			return nil, err
		}
		return at, nil
	}
	return nil, fmt.Errorf("an argument of Go type %s cannot be read", t)
}

// addFields adds t's fields to at, flattening embedded structs.
func addFields(at *argType, t reflect.Type, index []int) error {
	for i := range t.NumField() {
		sf := t.Field(i)
		idx := append(append([]int(nil), index...), i)
		tag := sf.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if sf.Anonymous && name == "" && sf.Type.Kind() == reflect.Struct {
			if err := addFields(at, sf.Type, idx); err != nil {
				return err
			}
			continue
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		ft, err := argTypeFor(sf.Type)
		if err != nil {
			return fmt.Errorf("%s.%s: %w", t.Name(), sf.Name, err)
		}
		if sf.Tag.Get("avenir") == "code" {
			if ft.kind != argString {
				return fmt.Errorf("%s.%s: a confirmation code must be a string field", t.Name(), sf.Name)
			}
			ft = &argType{kind: argCode, goType: sf.Type}
		}
		if _, dup := at.field(name); dup {
			return fmt.Errorf("%s: two fields are named %q", t.Name(), name)
		}
		optional := strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,")
		at.fields = append(at.fields, argField{name: name, index: idx, required: !optional,
			desc: sf.Tag.Get("jsonschema"), t: ft})
	}
	return nil
}

// schema writes the portable input schema of t: one type per property, no $ref or
// combinators. It is as short as it can be, since every conversation carries it: an amount is
// declared a string (a JSON number is accepted as well, as the guide says), no pattern, and no
// additionalProperties, since avenir, not the SDK, reads the arguments and refuses an unknown
// one by name.
func (t *argType) schema(desc string) *jsonschema.Schema {
	s := &jsonschema.Schema{Description: desc}
	switch t.kind {
	case argString, argCode:
		s.Type = "string"
	case argBool:
		s.Type = "boolean"
	case argInt:
		s.Type = "integer"
	case argAmount:
		s.Type = "string"
		if desc == "" {
			s.Description = "a decimal"
		}
	case argPointer:
		return t.elem.schema(desc)
	case argSlice:
		s.Type, s.Items = "array", t.elem.schema("")
	case argStruct:
		s.Type = "object"
		if len(t.fields) > 0 {
			s.Properties = map[string]*jsonschema.Schema{}
		}
		for _, f := range t.fields {
			s.Properties[f.name] = f.t.schema(f.desc)
			s.PropertyOrder = append(s.PropertyOrder, f.name)
			if f.required {
				s.Required = append(s.Required, f.name)
			}
		}
	}
	return s
}

// what says what a value of t must be, for an error.
func (t *argType) what() string {
	switch t.kind {
	case argString:
		return "a string"
	case argBool:
		return "true or false"
	case argInt:
		return "a whole number"
	case argAmount:
		return `an amount: a decimal such as 150, -12.34 or "150.00"`
	case argPointer:
		return t.elem.what()
	case argSlice:
		return "an array"
	case argStruct:
		return "an object"
	}
	return "text"
}

// argError is a mistake in a tool's arguments, worded for the person or model that made it.
type argError struct{ msg string }

func (e *argError) Error() string { return e.msg }

func argErrorf(format string, args ...any) error { return &argError{fmt.Sprintf(format, args...)} }

// decodeArgs reads a tool's arguments (raw JSON, nil when absent) into out, a pointer to t's Go
// type. tool names the tool in errors.
func decodeArgs(raw []byte, t *argType, out any, tool string) error {
	v := reflect.ValueOf(out).Elem()
	sc := clientjson.NewScanner(raw)
	if sc.AtEnd() {
		return missing(t)
	}
	switch c := sc.Peek(); c {
	case 'n':
		if lit, err := sc.ReadLiteral(); err == nil && lit == "null" && sc.AtEnd() {
			return missing(t)
		}
		sc.Seek(0)
	case '{':
	default:
		if err := clientjson.Check(raw); err != nil {
			return argErrorf("the arguments are not valid JSON: %v", err)
		}
		return argErrorf("the arguments must be an object of named arguments, not %s", clientjson.KindAt(c))
	}
	d := &argDecoder{sc: sc, tool: tool}
	if err := d.value(t, v, "", "", 0); err != nil {
		return d.explain(err)
	}
	if !sc.AtEnd() {
		return argErrorf("the arguments are not valid JSON: more text after them, at byte %d", sc.Pos()+1)
	}
	return nil
}

// argDecoder reads one call's arguments.
type argDecoder struct {
	sc   *clientjson.Scanner
	tool string
}

// explain words a scanner error for the arguments.
func (d *argDecoder) explain(err error) error {
	var je *clientjson.Error
	if !errors.As(err, &je) {
		return err
	}
	switch je.Kind {
	case clientjson.Duplicate:
		if !strings.ContainsAny(je.Path, ".[") {
			return argErrorf("%s is given twice: give each argument once", quoted(je.Path))
		}
		return argErrorf("%s is given twice: give each field once", je.Path)
	case clientjson.TooDeep:
		return argErrorf("the arguments nest deeper than %d levels", clientjson.MaxNesting)
	}
	return argErrorf("the arguments are not valid JSON: %v", err)
}

// name is how an error names the value at path: the argument, or the arguments themselves.
func name(path string) string {
	if path == "" {
		return "the arguments"
	}
	return path
}

// typeError says that the value at the scanner (starting with c) is not what t needs.
func (d *argDecoder) typeError(t *argType, path, desc string, c byte) error {
	got := clientjson.KindAt(c)
	if c == '-' || '0' <= c && c <= '9' {
		start := d.sc.Pos()
		if text, err := d.sc.ReadNumber(); err == nil {
			got = "the number " + bound(text, maxQuoted)
		}
		d.sc.Seek(start)
	} else if c == '"' {
		start := d.sc.Pos()
		if s, err := d.sc.ReadString(); err == nil {
			got = "the string " + quoted(s)
		}
		d.sc.Seek(start)
	}
	return mustBe(t, path, desc, got)
}

// mustBe says what the value at path must be, and what it was.
func mustBe(t *argType, path, desc, got string) error {
	if desc != "" {
		return argErrorf("%s: must be %s (%s), not %s", name(path), t.what(), desc, got)
	}
	return argErrorf("%s: must be %s, not %s", name(path), t.what(), got)
}

// value reads the value at the scanner into v. depth is the nesting of its container; desc is
// the argument's description, for errors.
func (d *argDecoder) value(t *argType, v reflect.Value, path, desc string, depth int) error {
	sc := d.sc
	c := sc.Peek()
	switch t.kind {
	case argString:
		if c != '"' {
			return d.typeError(t, path, desc, c)
		}
		s, err := sc.ReadString()
		if err != nil {
			return err
		}
		v.SetString(s)
	case argCode:
		start := sc.Pos()
		if c == '"' {
			s, err := sc.ReadString()
			if err != nil {
				return err
			}
			v.SetString(s)
			return nil
		}
		if err := sc.SkipValue(depth, path); err != nil {
			return err
		}
		v.SetString(bound(string(sc.Since(start)), maxQuoted))
	case argBool:
		if c != 't' && c != 'f' {
			return d.typeError(t, path, desc, c)
		}
		lit, err := sc.ReadLiteral()
		if err != nil {
			return err
		}
		v.SetBool(lit == "true")
	case argInt:
		if c != '-' && (c < '0' || c > '9') {
			return d.typeError(t, path, desc, c)
		}
		text, err := sc.ReadNumber()
		if err != nil {
			return err
		}
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil || v.OverflowInt(n) {
			return mustBe(t, path, desc, bound(text, maxQuoted))
		}
		v.SetInt(n)
	case argAmount:
		var text string
		var err error
		switch {
		case c == '"':
			text, err = sc.ReadString()
		case c == '-' || '0' <= c && c <= '9':
			text, err = sc.ReadNumber()
		default:
			return d.typeError(t, path, desc, c)
		}
		if err != nil {
			return err
		}
		v.Set(reflect.ValueOf(Amount{text: strings.TrimSpace(text), given: true}))
	case argPointer:
		p := reflect.New(t.elem.goType)
		if err := d.value(t.elem, p.Elem(), path, desc, depth); err != nil {
			return err
		}
		v.Set(p)
	case argSlice:
		if c != '[' {
			return d.typeError(t, path, desc, c)
		}
		s := reflect.MakeSlice(t.goType, 0, 0)
		err := sc.Array(depth, path, func(i, depth int, path string) error {
			if sc.Peek() == 'n' {
				return argErrorf("%s: must be %s, not null", path, t.elem.what())
			}
			s = reflect.Append(s, reflect.Zero(t.elem.goType))
			return d.value(t.elem, s.Index(i), path, "", depth)
		})
		if err != nil {
			return err
		}
		v.Set(s)
	case argStruct:
		if c != '{' {
			return d.typeError(t, path, desc, c)
		}
		given := map[string]bool{}
		err := sc.Object(depth, path, func(key string, depth int, sub string) error {
			f, ok := t.field(key)
			if !ok {
				return d.unknown(t, path, key)
			}
			if sc.Peek() == 'n' {
				return sc.SkipValue(depth, sub) // null: the argument is absent
			}
			given[key] = true
			return d.value(f.t, v.FieldByIndex(f.index), sub, f.desc, depth)
		})
		if err != nil {
			return err
		}
		for _, f := range t.fields {
			if f.required && !given[f.name] {
				return missingError(f, clientjson.JoinPath(path, f.name))
			}
		}
	}
	return nil
}

// missing reports the first required argument when no arguments were sent at all.
func missing(t *argType) error {
	for _, f := range t.fields {
		if f.required {
			return missingError(f, f.name)
		}
	}
	return nil
}

func missingError(f argField, path string) error {
	if f.desc == "" {
		return argErrorf("%s: missing; it is required and must be %s", path, f.t.what())
	}
	return argErrorf("%s: missing — %s, %s", path, f.t.what(), f.desc)
}

// unknown refuses a key t does not take, listing the ones it does.
func (d *argDecoder) unknown(t *argType, path, key string) error {
	if path == "" {
		return argErrorf("%s takes no argument %s; its arguments are %s", d.tool, quoted(key), strings.Join(t.names(), ", "))
	}
	return argErrorf("%s: there is no field %s; the fields are %s", path, quoted(key), strings.Join(t.names(), ", "))
}
