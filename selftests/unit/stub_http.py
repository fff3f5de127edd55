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

"""A stub HTTP server on 127.0.0.1 for the unit tests."""

import http.server
import threading


class JsonHandler(http.server.BaseHTTPRequestHandler):
    """A quiet handler; subclasses write do_GET with send_json."""

    def send_json(self, status, text):
        """Answer status with text (already JSON, or not) as JSON."""
        data = text.encode()
        self.send_response(status)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def serve(test, handler, ssl_context=None):
    """Serve handler in a thread until test's cleanups; the port.

    ssl_context: a server-side ssl.SSLContext to serve https with.
    """
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)
    if ssl_context is not None:
        server.socket = ssl_context.wrap_socket(server.socket,
                                                server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    test.addCleanup(thread.join, 5)
    test.addCleanup(server.server_close)
    test.addCleanup(server.shutdown)
    return server.server_address[1]
