// Package adminwire holds what crosses the HTTP boundary of hookrelay's
// admin API: the JSON bodies of its requests and answers, the error body,
// the values their enumerated fields take, and the header that marks an
// answer as the API's. The server (adminapi) writes them, the client
// (adminclient) and the CLI read them, and neither side needs the other's
// code to do so: the package imports no server code, only the store's
// types that convert.go turns into their wire form.
//
// Times are RFC 3339 in UTC; a time that does not apply is null. Fields
// may be added, never renamed: testdata/wire.golden holds the JSON of
// every body, and a test fails when it changes.
package adminwire
