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

"""How every WSGI service of the cloud (keystone, the Glance APIs,
heat-api, heat-api-cfn) is run: one uwsgi argv for all of them."""

import sys

from glance_multiapi_cloud import processes
from glance_multiapi_cloud import tlsmode

HINT = 'install cloud-requirements.txt (uWSGI) into this venv'


def binary():
    """The uwsgi program; MissingBinary when it is not installed."""
    return processes.find_binary('uwsgi', HINT)


def socket(state, port, listener):
    """One socket of argv(): 'host:port', or (host:port, cert, key) --tls.

    listener names the certificate (tlsmode.cert_for), by its port key.
    """
    address = '127.0.0.1:%d' % port
    if not tlsmode.enabled(state):
        return address
    cert, key = tlsmode.cert_for(state, listener)
    return (address, cert, key)


def argv(module, sockets, name):
    """Argv of a uwsgi running one WSGI app on the given sockets.

    A socket is 'host:port' (plain http) or (host:port, cert, key), served
    over https (see socket()).
    """
    result = [binary(),
              '--processes', '1', '--threads', '4',
              '--enable-threads', '--die-on-term', '--need-app',
              '--home', sys.prefix,
              '--module', module,
              '--buffer-size', '65535',
              # NOTE: clients stream image data in chunks; uwsgi's default
              # 4 s socket timeout would cut a slow (throttled) upload.
              '--socket-timeout', '600',
              '--http-chunked-input', '--http-auto-chunked',
              '--chunked-input-limit', '10485760',
              # NOTE: http-socket closes every connection after a response
              # without saying so; a client that reuses it races the close
              # and gets "Connection reset by peer". Say so.
              '--add-header', 'Connection: close',
              '--procname-prefix-spaced', 'glance-multiapi-cloud:%s' % name]
    for item in sockets:
        if isinstance(item, str):
            result += ['--http-socket', item]
        else:
            result += ['--https-socket', ','.join(item)]
    return result
