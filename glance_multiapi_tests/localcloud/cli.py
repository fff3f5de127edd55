import sys


def main(argv=None):
    sys.stderr.write('not implemented yet\n')
    return 2
