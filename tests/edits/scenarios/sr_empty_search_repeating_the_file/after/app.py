import os


def main():
    print(os.getcwd())


if __name__ == "__main__":
    main()
