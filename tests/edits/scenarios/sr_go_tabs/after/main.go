package main

func add(a int, b int) int {
	return b + a
}
