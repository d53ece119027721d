// Command check validates avenir's server.json for the MCP Registry, and fills it in for a
// release from the Claude Desktop bundle that release built.
//
//	check [-bundle FILE] SERVER_JSON
//	check -fill -version X.Y.Z -bundle FILE -o OUT SERVER_JSON
//
// A server.json passes when it validates against the registry's published schema (the copy in
// server.schema.json, with formats asserted) and keeps avenir's own rules: its name, one
// mcpb package over stdio, the package's version and download address those of the server's
// version, and, with -bundle, the package's fileSha256 that of the bundle. -fill writes the
// committed server.json with the version, the address and the bundle's hash filled in, then
// checks what it wrote.
//
// It is a module of its own so that the JSON Schema validator (santhosh-tekuri/jsonschema, the
// one draft-07 validator here that asserts formats) stays out of avenir's own dependencies.
package main

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaURL is the schema's own $id: server.json's "$schema" must name it.
const schemaURL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

const (
	serverName = "io.github.avenir-mcp/avenir"
	// downloads is where a release's assets are: the bundle is avenir-VERSION.mcpb on tag vVERSION.
	downloads = "https://github.com/avenir-mcp/avenir/releases/download/"
)

// server is the part of server.json avenir writes. Decoding refuses any other field, so that
// a field added to server.json is added here too and -fill never drops it.
type server struct {
	Schema      string      `json:"$schema"`
	Name        string      `json:"name"`
	Title       string      `json:"title,omitempty"`
	Description string      `json:"description"`
	Repository  *repository `json:"repository,omitempty"`
	WebsiteURL  string      `json:"websiteUrl,omitempty"`
	Version     string      `json:"version"`
	Packages    []pkg       `json:"packages"`
}

type repository struct {
	URL    string `json:"url"`
	Source string `json:"source"`
}

type pkg struct {
	RegistryType string    `json:"registryType"`
	Identifier   string    `json:"identifier"`
	Version      string    `json:"version"`
	FileSHA256   string    `json:"fileSha256"`
	Transport    transport `json:"transport"`
}

type transport struct {
	Type string `json:"type"`
}

var version = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$`)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "registry check: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fill := fs.Bool("fill", false, "fill in the version, the download address and the bundle's hash")
	ver := fs.String("version", "", "with -fill: the release's version, X.Y.Z")
	bundle := fs.String("bundle", "", "the Claude Desktop bundle (.mcpb) whose hash server.json must carry")
	out := fs.String("o", "", "with -fill: where to write the filled server.json")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("name one server.json")
	}
	path := fs.Arg(0)
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if *fill {
		if *out == "" || *bundle == "" || !version.MatchString(*ver) {
			return errors.New("-fill needs -version X.Y.Z, -bundle FILE and -o OUT")
		}
		sum, err := fileSHA256(*bundle)
		if err != nil {
			return err
		}
		if raw, err = fillIn(raw, *ver, sum); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if err := os.WriteFile(*out, raw, 0o644); err != nil {
			return err
		}
		path = *out
	}
	want := ""
	if *bundle != "" {
		if want, err = fileSHA256(*bundle); err != nil {
			return err
		}
	}
	if err := check(raw, want); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	fmt.Fprintf(stdout, "%s: valid against %s and avenir's rules\n", path, schemaURL)
	return nil
}

// fillIn is server.json for release ver, whose bundle's SHA-256 is sum.
func fillIn(raw []byte, ver, sum string) ([]byte, error) {
	s, err := decode(raw)
	if err != nil {
		return nil, err
	}
	if len(s.Packages) != 1 {
		return nil, fmt.Errorf("%d packages, want the one bundle", len(s.Packages))
	}
	s.Version = ver
	s.Packages[0].Version = ver
	s.Packages[0].Identifier = bundleURL(ver)
	s.Packages[0].FileSHA256 = sum
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func bundleURL(ver string) string { return downloads + "v" + ver + "/avenir-" + ver + ".mcpb" }

func decode(raw []byte) (server, error) {
	var s server
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return s, fmt.Errorf("reading it as avenir's server.json: %w", err)
	}
	return s, nil
}

// check validates raw against the registry's schema and avenir's rules; wantSum, if not "",
// is the bundle's SHA-256 the package must carry.
func check(raw []byte, wantSum string) error {
	sch, err := compile()
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("against the registry's schema: %w", err)
	}
	s, err := decode(raw)
	if err != nil {
		return err
	}
	var errs []error
	if s.Schema != schemaURL {
		errs = append(errs, fmt.Errorf("$schema is %q, want %q (the schema vendored here)", s.Schema, schemaURL))
	}
	if s.Name != serverName {
		errs = append(errs, fmt.Errorf("name is %q, want %q", s.Name, serverName))
	}
	if !version.MatchString(s.Version) {
		errs = append(errs, fmt.Errorf("version %q is not X.Y.Z", s.Version))
	}
	if len(s.Packages) != 1 {
		errs = append(errs, fmt.Errorf("%d packages, want one: the Claude Desktop bundle", len(s.Packages)))
	}
	for _, p := range s.Packages {
		if p.RegistryType != "mcpb" || p.Transport.Type != "stdio" {
			errs = append(errs, fmt.Errorf("package %s over %s, want mcpb over stdio", p.RegistryType, p.Transport.Type))
		}
		if p.Version != s.Version {
			errs = append(errs, fmt.Errorf("the package's version %q is not the server's %q", p.Version, s.Version))
		}
		if p.Identifier != bundleURL(s.Version) {
			errs = append(errs, fmt.Errorf("the package's identifier %q, want %q", p.Identifier, bundleURL(s.Version)))
		}
		if wantSum != "" && p.FileSHA256 != wantSum {
			errs = append(errs, fmt.Errorf("fileSha256 %s is not the bundle's, %s", p.FileSHA256, wantSum))
		}
	}
	return errors.Join(errs...)
}

// schemaJSON is the registry's schema as published: server.schema.json, vendored (see
// ../README.md for where it comes from and how to update it).
//
//go:embed server.schema.json
var schemaJSON []byte

// compile loads the vendored schema under its own URL, so that nothing is fetched.
func compile() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, fmt.Errorf("the registry's schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	return c.Compile(schemaURL)
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hashing %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
