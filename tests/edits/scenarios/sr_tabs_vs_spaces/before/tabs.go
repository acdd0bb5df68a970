package main

func main() {
	if ok {
		do()
	}
}
