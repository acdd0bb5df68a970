import os


def greet(name):
    return "hello " + name


def farewell(name):
    # polite
    return "goodbye " + name
