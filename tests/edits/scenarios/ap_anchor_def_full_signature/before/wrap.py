def wrap(text, width=10):
    lines = []
    for word in text.split():
        lines.append(word)
    return lines


def unwrap(lines):
    lines = []
    return " ".join(lines)
