# syntax=docker/dockerfile:1
# The kbench image: a static kbench on distroless (no shell, no package
# manager), run as the non-root user 65532. Its entrypoint is kbench:
#
#   docker build -t REGISTRY/kbench:TAG --build-arg VERSION=TAG .
#   docker run --rm REGISTRY/kbench:TAG version
#
# --target kbench-kubectl adds kubectl, for fault commands that call it
# from the workers' pods (docs/distributed.md). Cross-builds with
# docker buildx build --platform linux/amd64,linux/arm64.

# The builder runs on the build machine and cross-compiles (pure Go).
# Its Go is go.mod's (go 1.26).
FROM --platform=$BUILDPLATFORM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG TARGETOS TARGETARCH
ARG VERSION=dev
RUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH \
    go build -trimpath -ldflags="-s -w -X main.version=${VERSION}" -o /out/kbench ./cmd/kbench

# kubectl from the Kubernetes release site, its checksum verified. Keep it
# within one minor version of the cluster's: --build-arg KUBECTL_VERSION=v1.34.0
FROM --platform=$BUILDPLATFORM golang:1.26 AS kubectl
ARG TARGETOS TARGETARCH
ARG KUBECTL_VERSION=v1.33.0
RUN curl -fsSLo /kubectl "https://dl.k8s.io/release/${KUBECTL_VERSION}/bin/${TARGETOS}/${TARGETARCH}/kubectl" \
 && curl -fsSLo /kubectl.sha256 "https://dl.k8s.io/release/${KUBECTL_VERSION}/bin/${TARGETOS}/${TARGETARCH}/kubectl.sha256" \
 && echo "$(cat /kubectl.sha256)  /kubectl" | sha256sum --check \
 && chmod 0755 /kubectl

FROM gcr.io/distroless/static-debian12:nonroot AS kbench-kubectl
COPY --from=build /out/kbench /usr/local/bin/kbench
COPY --from=kubectl /kubectl /usr/local/bin/kubectl
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/kbench"]

# The default target (the last stage): kbench alone.
FROM gcr.io/distroless/static-debian12:nonroot AS kbench
COPY --from=build /out/kbench /usr/local/bin/kbench
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/kbench"]
