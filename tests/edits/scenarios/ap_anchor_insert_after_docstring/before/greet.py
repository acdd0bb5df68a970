class Greeter:
    """Greets people.

    Politely.
    """

    def greet(self, name):
        return "hi " + name
