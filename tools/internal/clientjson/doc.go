// Package clientjson reads what an MCP client sends and words what goes back to it. It is shared
// by tools (a call's arguments) and tools/stdio (the framing of each line), so that both refuse
// the same JSON for the same reasons in the same words:
//
//   - [Scanner] and [Check]: a JSON reader stricter than encoding/json (no key twice, UTF-8
//     only, bounded nesting), whose errors say what is wrong and where;
//   - [Quoted] and [Bound]: a client's text quoted in a message, cut so it cannot flood it;
//   - [ShowsGoInternals]: whether a message shows Go's insides rather than words for a person.
//
// It imports nothing of avenir's, so the stdio transport can go without taking anything of
// tools with it.
package clientjson
