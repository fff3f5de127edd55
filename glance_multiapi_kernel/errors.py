#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

"""The one error style of the three command-line tools.

glance-multiapi-cloud, glance-image-uploader and
glance-multiapi-image-check each end a failed run with one readable line
and a documented exit code. Each raises a CliError subclass carrying both;
its main() prints str(error) the tool's way and returns exit_code.
"""

import argparse
import math
import os
import textwrap


def one_line(value, limit=None):
    """value's text with each run of white space, newlines too, one space.

    The one way the project puts a message, a refusal or an exception in
    one line: an exception without text gives its type's name, and with
    limit, longer text is cut to limit characters, marked with '...'.
    """
    text = ' '.join(str(value).split())
    if not text and isinstance(value, BaseException):
        text = type(value).__name__
    if limit is not None and len(text) > limit:
        text = text[:limit - 3] + '...'
    return text


class OneLineError(Exception):
    """An error whose str() is one line, whatever text it was given.

    NOTE: messages quote input (a key, a value, a line of a file), which
    may hold newlines of its own.
    """

    def __init__(self, message='', *args):
        super().__init__(one_line(message), *args)


class CliError(OneLineError):
    """One line for the user and the exit code the tool returns."""

    exit_code = 1

    def __init__(self, message, exit_code=None):
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code

    @property
    def message(self):
        return str(self)


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line, exit 2.

    NOTE: 2 is the usage error of every tool that uses it (the doctor,
    the image check, the report, the cloud), as it is argparse's.
    """

    def error(self, message):
        self.exit(2, '%s: error: %s (see --help)\n' % (self.prog, message))


def working_folder_problem():
    """Why relative paths mean nothing now, or None.

    NOTE: a working folder deleted under a command makes os.getcwd()
    fail, so every relative path (a default state dir, a records folder
    given as "results") fails to resolve deep inside; the command's
    last-resort handler asks this first, to say so instead of reporting
    an internal error.
    """
    try:
        os.getcwd()
    except FileNotFoundError:
        return ('the working folder no longer exists (deleted after it was '
                'entered): run from a folder that exists, or give absolute '
                'paths')
    return None


def positive_seconds(text):
    """argparse type: a finite number of seconds above zero."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError('%r is not a number' % text)
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError('%r is not a positive number of '
                                         'seconds' % text)
    return value


def non_negative_seconds(text):
    """argparse type: a finite number of seconds, zero or more."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError('%r is not a number' % text)
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError('%r is not a number of seconds, '
                                         'zero or more' % text)
    return value


def exit_code_table(meanings, width=79):
    """[(code, meaning)] as the indented table --help and README show."""
    return '\n'.join(
        textwrap.fill(text, width=width, initial_indent='  %3d  ' % code,
                      subsequent_indent=' ' * 7)
        for code, text in meanings)
