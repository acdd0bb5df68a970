import os


def greet(name):
    return f"hello {name}!"


def farewell(name):
    return "bye " + name
