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

"""The one way every command reads an input file, bounded and named.

A file given to a command must be a regular file: a FIFO, a device, a
socket, a folder or a symlink loop is refused, naming what it is, before
anything blocks on it (a FIFO is looked at with stat and opened
non-blocking). It may hold at most the bytes its kind of input ever
needs (LIMITS, documented in doc/source/cli.rst), and its text must be
UTF-8 (documents.decode names the line, column and offset of the first
byte that is not). What it holds is parsed by the pure parsers
(glance_multiapi_kernel/documents.py for YAML and JSON); every refusal here is
one
InputFileError naming the input, the path and the problem, and saying
whether the file could not be read at all (``unavailable``) or holds
what no input of its kind may (too large, not UTF-8), which each
command maps onto its documented exit codes.
"""

import errno
import os
import stat

from glance_multiapi_kernel import documents
from glance_multiapi_kernel import errors

KIB = 1024
MIB = 1024 * KIB
# NOTE: what a person writes (a spec, images-info, a Role, a mapping, an
# OpenStackVersion, a kubeconfig, clouds.yaml, tempest.conf, a CA
# bundle): the largest real one is tens of KiB; 2 MiB of YAML already
# take seconds to read in Python.
DOCUMENT_LIMIT = 2 * MIB
# NOTE: what a configured command prints (oc get ... -o json of one
# object, or a List of them).
COMMAND_OUTPUT_LIMIT = 16 * MIB
# NOTE: one worker's records of a run (a few hundred bytes a record).
RECORDS_LIMIT = 64 * MIB
# NOTE: the cloud's own state.json (the spec, ports, passwords).
STATE_LIMIT = 16 * MIB
LIMITS = (
    ('a YAML, JSON, INI or text input file (a spec, images-info, a Role, '
     'a mapping, an OpenStackVersion, an env listing, a names list, a '
     'kubeconfig, clouds.yaml, tempest.conf, a CA bundle)', DOCUMENT_LIMIT),
    ('the output of a configured command (discovery, version)',
     COMMAND_OUTPUT_LIMIT),
    ('one records file of glance-multiapi-report', RECORDS_LIMIT),
    ("the embedded cloud's state.json", STATE_LIMIT),
)
_KINDS = (
    (stat.S_ISDIR, 'a folder'), (stat.S_ISFIFO, 'a FIFO (named pipe)'),
    (stat.S_ISCHR, 'a character device'), (stat.S_ISBLK, 'a block device'),
    (stat.S_ISSOCK, 'a socket'),
)
_PREDICATES = ('is ', 'does ', 'cannot ')
_ERRNO = {
    errno.ENOENT: 'does not exist',
    errno.ENOTDIR: 'cannot be reached: a part of its path is not a folder',
    errno.ELOOP: 'is a symlink loop',
    errno.EACCES: 'cannot be read: permission denied',
    errno.EPERM: 'cannot be read: permission denied',
    errno.ENXIO: 'is a socket',
}


class InputFileError(errors.OneLineError):
    """An input file that cannot be used; str() names input, path, why.

    unavailable: True when it could not be read at all (missing, not a
    regular file, no permission), False when it was read and holds what
    no input of its kind may (too large, not UTF-8, not a document).
    """

    def __init__(self, what, path, problem, unavailable, errno=None):
        self.what = what
        self.path = path
        # NOTE: the OSError's, when the file could not be opened.
        self.errno = errno
        self.problem = errors.one_line(problem)
        self.unavailable = unavailable
        # NOTE: "spec x.yaml is a FIFO ...", "spec x.yaml: the key a ...".
        sep = ' ' if problem.startswith(_PREDICATES) else ': '
        super().__init__(sep.join(('%s %s' % (what, path) if what
                                   else path, problem)))


def size_text(size):
    """1536 -> '1.5 KiB', for messages and docs."""
    for unit, factor in (('MiB', MIB), ('KiB', KIB)):
        if size >= factor:
            return ('%.1f %s' % (size / factor, unit)).replace('.0 ', ' ')
    return '%d bytes' % size


def kind_of(mode):
    """'a FIFO (named pipe)', 'a folder', ... or None for a regular file."""
    for test, name in _KINDS:
        if test(mode):
            return name
    return None if stat.S_ISREG(mode) else 'not a regular file'


def _unavailable(what, path, exc):
    problem = _ERRNO.get(exc.errno) or 'cannot be read: %s' % (
        exc.strerror or exc)
    return InputFileError(what, path, problem, unavailable=True,
                          errno=exc.errno)


def _refuse_kind(what, path, mode):
    kind = kind_of(mode)
    if kind:
        raise InputFileError(what, path, 'is %s, not a regular file' % kind,
                             unavailable=True)


def open_regular(path, what):
    """A binary file object of path; InputFileError unless a regular file.

    NOTE: stat first, so a device is never opened (opening some has
    effects); then open non-blocking, so a FIFO swapped in meanwhile does
    not wait for a writer, and check the opened file again.
    """
    try:
        _refuse_kind(what, path, os.stat(path).st_mode)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY |
                     os.O_CLOEXEC)
    except OSError as exc:
        raise _unavailable(what, path, exc) from None
    try:
        _refuse_kind(what, path, os.fstat(fd).st_mode)
        os.set_blocking(fd, True)
        return os.fdopen(fd, 'rb')
    except BaseException:
        os.close(fd)
        raise


def _too_large(what, path, size, limit):
    return InputFileError(what, path, 'is %s, more than the %s such an '
                          'input may hold' % (size, size_text(limit)),
                          unavailable=False)


def read_bytes(path, what, limit=DOCUMENT_LIMIT):
    """The bytes of the regular file path, at most limit of them."""
    with open_regular(path, what) as f:
        size = os.fstat(f.fileno()).st_size
        if size > limit:
            raise _too_large(what, path, size_text(size), limit)
        try:
            data = f.read(limit + 1)
        except OSError as exc:
            raise _unavailable(what, path, exc) from None
    if len(data) > limit:
        # NOTE: it grew since fstat (a log still written).
        raise _too_large(what, path, 'more', limit)
    return data


def read_text(path, what, limit=DOCUMENT_LIMIT):
    """The UTF-8 text of the regular file path (see read_bytes)."""
    data = read_bytes(path, what, limit)
    problem = documents.utf8_problem(data)
    if problem:
        raise InputFileError(what, path, 'is ' + problem, unavailable=False)
    return data.decode('utf-8')


def check_regular(path, what, limit=DOCUMENT_LIMIT):
    """InputFileError unless path is a regular file of at most limit.

    For files a library reads itself (a CA bundle for ssl, a kubeconfig
    for the kubernetes package), which would block on a FIFO or read a
    device without end.
    """
    with open_regular(path, what) as f:
        size = os.fstat(f.fileno()).st_size
    if size > limit:
        raise _too_large(what, path, size_text(size), limit)


def load_yaml(path, what, limit=DOCUMENT_LIMIT, **kwargs):
    """The document of a YAML (or JSON) file: read_text + load_yaml.

    kwargs go to documents.load_yaml; a DocumentError becomes an
    InputFileError naming the file.
    """
    text = read_text(path, what, limit)
    try:
        return documents.load_yaml(text, **kwargs)
    except documents.DocumentError as exc:
        raise InputFileError(what, path, str(exc), unavailable=False) \
            from None
