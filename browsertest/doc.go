// Package browsertest drives hookrelay's web console in a real headless
// Chromium, on each driver, and photographs every page. It is a module of
// its own so that the browser's driver (chromedp) is a requirement of
// these tests alone, never of an application that embeds hookrelay.
package browsertest
