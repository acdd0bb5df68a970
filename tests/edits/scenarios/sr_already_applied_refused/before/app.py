import os


def greet(name):
    return "hi " + name


def farewell(name):
    return "bye " + name
