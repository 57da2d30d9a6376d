"""An S3 for tests: moto's server on 127.0.0.1 in its authenticating mode, with an IAM user
allowed everything on S3 and to assume a role that is too (STS, for vended credentials), and
a bucket. Run as `.deps/py/bin/python test/tools/moto_s3.py`; prints one JSON line
{"endpoint", "access_key_id", "secret_access_key", "bucket", "region", "role_arn"}
once the server is ready, and stops the server when its standard input closes (or it is
terminated). Requests after the setup must be signed with that user's key: a wrong key or a
bad signature is rejected, as by S3."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

# The requests the setup makes before authentication is enforced: CreateUser,
# PutUserPolicy, CreateAccessKey, CreateRole, PutRolePolicy, CreateBucket.
SETUP_ACTIONS = 6
POLICY = {"Version": "2012-10-17",
          "Statement": [{"Effect": "Allow",
                         "Action": ["s3:*", "sts:AssumeRole", "sts:GetSessionToken"],
                         "Resource": "*"}]}
ROLE_POLICY = {"Version": "2012-10-17",
               "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}
TRUST = {"Version": "2012-10-17",
         "Statement": [{"Effect": "Allow", "Principal": {"AWS": "*"},
                        "Action": "sts:AssumeRole"}]}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    import boto3

    port = free_port()
    server = os.path.join(os.path.dirname(sys.executable), "moto_server")
    env = dict(os.environ, INITIAL_NO_AUTH_ACTION_COUNT=str(SETUP_ACTIONS))
    proc = subprocess.Popen([server, "-H", "127.0.0.1", "-p", str(port)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def stop(*_):
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    endpoint = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(endpoint + "/moto-api/", timeout=1)
                break
            except Exception:
                if proc.poll() is not None:
                    sys.exit(f"moto_server exited with {proc.returncode}")
                time.sleep(0.1)
        session = boto3.session.Session(aws_access_key_id="setup", aws_secret_access_key="setup",
                                        region_name="us-east-1")
        iam = session.client("iam", endpoint_url=endpoint)
        iam.create_user(UserName="floe")
        iam.put_user_policy(UserName="floe", PolicyName="s3", PolicyDocument=json.dumps(POLICY))
        key = iam.create_access_key(UserName="floe")["AccessKey"]
        role = iam.create_role(RoleName="floe-vended",
                               AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]
        iam.put_role_policy(RoleName="floe-vended", PolicyName="s3",
                            PolicyDocument=json.dumps(ROLE_POLICY))
        s3 = session.client("s3", endpoint_url=endpoint)
        s3.create_bucket(Bucket="warehouse")
        print(json.dumps({"endpoint": endpoint, "access_key_id": key["AccessKeyId"],
                          "secret_access_key": key["SecretAccessKey"], "bucket": "warehouse",
                          "region": "us-east-1", "role_arn": role["Arn"]}), flush=True)
        sys.stdin.read()
    finally:
        stop()


if __name__ == "__main__":
    main()
