class AppError(Exception):
    def __init__(self, msg):
        self.msg = msg
        self.code = 1

    def __str__(self):
        return self.msg
