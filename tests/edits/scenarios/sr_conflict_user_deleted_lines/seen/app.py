import os


def greet(name):
    return "hello " + name


def farewell(name):
    return "bye " + name
