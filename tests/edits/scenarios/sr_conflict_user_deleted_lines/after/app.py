import os
import sys


def greet(name):
    return "hello " + name


