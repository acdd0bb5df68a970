import sys


def greet(name):
    return "hello " + name


def farewell(name):
    return "bye bye " + name  # user
