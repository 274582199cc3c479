// Package hello greets people.
package hello

// Greet returns a greeting for name.
func Greet(name string) string {
	return ""
}
