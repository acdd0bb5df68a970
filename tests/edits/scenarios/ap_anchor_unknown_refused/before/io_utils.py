import os


def load(path):
    with open(path) as f:
        data = f.read()
    return data.splitlines()


def save(path, lines):
    with open(path, "w") as f:
        f.write("\n".join(lines))
