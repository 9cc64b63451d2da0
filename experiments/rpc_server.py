"""Start a TVM RPC server for the study on a device and register it with a tracker.

    python -m experiments.rpc_server --tracker HOST:PORT --key KEY [--host 0.0.0.0] [--port 9090]

It is TVM's own RPC server plus one global function, `study.environment`,
that returns the device's environment (the seed §11 checklist) as JSON, so a
run measured through RPC records the device it ran on, not the host that
compiled the kernels. The device needs this project on PYTHONPATH.
"""
import argparse


def _register_environment():
    import json

    import tvm

    from study import environment

    tvm.register_global_func("study.environment", lambda: json.dumps(environment.capture()), override=True)


def main(argv=None):
    from tvm import rpc

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tracker", required=True, help="tracker address HOST:PORT")
    parser.add_argument("--key", required=True, help="device key the tracker matches requests on")
    parser.add_argument("--host", default="0.0.0.0")
    parser.add_argument("--port", type=int, default=9090)
    parser.add_argument("--port-end", type=int, default=None, help="default: port + 100")
    args = parser.parse_args(argv)
    host, port = args.tracker.rsplit(":", 1)
    server = rpc.Server(args.host, args.port, args.port_end or args.port + 100, key=args.key, tracker_addr=(host, int(port)),
                        server_init_callback=_register_environment)
    server.proc.join()


if __name__ == "__main__":
    main()
