package search

// ASCIILower is asciiLower, for the tests.
var ASCIILower = asciiLower
