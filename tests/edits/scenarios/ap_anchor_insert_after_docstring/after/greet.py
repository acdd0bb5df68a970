class Greeter:
    """Greets people.

    Politely.
    """

    count = 0

    def greet(self, name):
        return "hi " + name
