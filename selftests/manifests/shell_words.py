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

"""What bash and GNU xargs make of words, as run_tempest.sh meets them.

``bash_words``: an unquoted ``${VAR}`` with the default IFS (word
splitting, then pathname expansion without nullglob); ``bash_echo``:
bash's builtin echo; ``xargs_words``: the arguments GNU xargs reads
(findutils' quote rules). tcib_pod.py builds the pod's command lines
from these; RenderError is what the pod would refuse.
"""

import glob
import os

IFS_WHITESPACE = ' \t\n'
GLOB_MAGIC = '*?['
# GNU xargs: blanks and newlines end an argument outside quotes
# (findutils xargs.c read_line, ISSPACE).
XARGS_SPACE = ' \t\n\v\f\r'


class RenderError(ValueError):
    """The pod would not get this far; str() says where and why."""


def bash_words(text, cwd=None):
    """The words of an unquoted ``${VAR}`` in bash with the default IFS.

    Split on runs of blanks and newlines, then each word holding ``*``,
    ``?`` or ``[`` is replaced by the names it matches in cwd, sorted, or
    kept as it is when nothing matches (bash without nullglob); cwd None
    matches nothing.
    """
    words = []
    for word in split_ifs(text):
        matches = _glob(word, cwd) if any(c in word for c in GLOB_MAGIC) \
            else []
        words.extend(matches or [word])
    return words


def split_ifs(text):
    """The words of text split on runs of IFS whitespace, no globbing."""
    word, words = None, []
    for char in text or '':
        if char in IFS_WHITESPACE:
            if word is not None:
                words.append(word)
                word = None
        else:
            word = (word or '') + char
    if word is not None:
        words.append(word)
    return words


def _glob(pattern, cwd):
    if cwd is None:
        return []
    if os.path.isabs(pattern):
        return sorted(glob.glob(pattern))
    prefix = os.path.join(cwd, '')
    return sorted(path[len(prefix):] for path in
                  glob.glob(os.path.join(glob.escape(prefix), pattern)))


def bash_echo(words):
    """What bash's builtin ``echo WORDS...`` prints (xpg_echo off)."""
    newline = '\n'
    while words and len(words[0]) > 1 and words[0][0] == '-' and \
            set(words[0][1:]) <= set('neE'):
        if 'e' in words[0]:
            raise RenderError('tempestconfRun.overrides starts with %r, '
                              'which bash\'s echo takes for its -e option'
                              % words[0])
        if 'n' in words[0]:
            newline = ''
        words = words[1:]
    return ' '.join(words) + newline


def xargs_words(text):
    """The arguments GNU xargs reads from text (no -0, -d, -E, -L or -I).

    Outside quotes blanks and newlines end an argument and a backslash
    takes the next character literally; '...' and "..." quote everything
    up to the same quote, backslashes included, but not a newline. An
    unmatched quote raises RenderError: xargs then runs the command with
    the arguments before the broken one (RenderError.partial) and exits
    1, so run_tempest.sh's "&& tempest run" never runs.
    """
    args, current, quote = [], None, None
    chars = iter(text)
    for char in chars:
        if quote:
            if char == '\n':
                raise _unmatched(quote, args)
            if char == quote:
                quote = None
            else:
                current += char
        elif char in XARGS_SPACE:
            if current is not None:
                args.append(current)
                current = None
        elif char == '\\':
            current = (current or '') + next(chars, '')
        elif char in '\'"':
            quote = char
            current = current or ''
        else:
            current = (current or '') + char
    if quote:
        raise _unmatched(quote, args)
    if current is not None:
        args.append(current)
    return args


def _unmatched(quote, args):
    error = RenderError(
        'xargs: unmatched %s quote; by default quotes are special to xargs '
        'unless you use the -0 option (run_tempest.sh pipes the '
        'discover-tempest-config arguments through xargs, which runs it '
        'with the %d arguments before that quote and exits 1: no test '
        'runs)' % ('single' if quote == "'" else 'double', len(args)))
    error.partial = list(args)
    return error
