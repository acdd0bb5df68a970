import os


def greet(name):
    return "HELLO " + name


def farewell(name):
    return "bye " + name
