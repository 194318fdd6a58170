import click

@click.group()
def main():
    """agent-eval"""
