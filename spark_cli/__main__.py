"""`python -m spark_cli` runs the same CLI as the `spark` console script."""

from spark_cli.cli.entry import run

if __name__ == "__main__":
    run()
