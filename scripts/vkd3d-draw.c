/*
 * vkd3d-draw: one full-screen draw of a vs/ps pair (DXBC) through vkd3d
 * (Direct3D 12 on Vulkan) on Mesa's lavapipe, timed with timestamp queries;
 * the render target is written to a file. The graphics peer of sm5jit's
 * pixel benchmark (`sm5jit bench --peer-setup DIR` writes the arguments,
 * `scripts/peer-bench.sh` runs it; see docs/performance.md).
 *
 *   vkd3d-draw --size W H --vs VS.dxbc --ps PS.dxbc --rt-format DXGI
 *              [--texture [depth:]tN:DXGI:W:H:MIPS:FILE]... [--sampler sN:FILTER:AU:AV:AW:CMP]...
 *              [--cbv b0:FILE] [--out FILE] [--iters N]
 *
 * Textures: 2D, mips packed tightly in FILE (mip 0 first); `depth:` before
 * tN makes an R32_FLOAT texture an R32_TYPELESS depth-stencil resource
 * viewed as R32_FLOAT (Vulkan compares only against depth formats); one SRV
 * descriptor table (t0..tN-1, in option order: give them in slot order
 * from t0). Samplers: static samplers (D3D12_FILTER, address modes and
 * comparison function as numbers). cb0: a root CBV in an upload heap. The
 * vertex shader gets no vertex buffer (SV_VertexID only); the draw is
 * DrawInstanced(3, 1): a full-screen triangle. No culling, no depth, no
 * blending.
 *
 * Prints `key value` lines: device, lp_num_threads, compile_ms
 * (CreateGraphicsPipelineState), first_draw_ms (wall, includes lavapipe's
 * lazy LLVM compile), iters, draw_ms_median (wall per submission),
 * gpu_ms_median and gpu_ms_min (timestamps around the draw alone),
 * cpu_ms_median (process CPU time per submission: lavapipe's threads
 * included; on a loaded machine the steadier measure), pixels_per_s.
 */
#define COBJMACROS
#define INITGUID
#define WIDL_C_INLINE_WRAPPERS
#include <vkd3d_windows.h>
#include <vkd3d_d3d12.h>
#define VKD3D_UTILS_API_VERSION VKD3D_API_VERSION_1_2
#include <vkd3d.h>
#include <vkd3d_utils.h>

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

#define MAX_TEXTURES 8
#define MAX_SAMPLERS 8
#define LVP_ICD "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"

struct texture
{
    unsigned int slot, format, width, height, mips;
    bool depth;             /* R32_FLOAT shadow map: a D32 resource (comparison sampling) */
    uint8_t *data;
    uint64_t size;
    ID3D12Resource *resource, *upload;
};

struct sampler
{
    unsigned int slot, filter, address[3], comparison;
};

static struct texture textures[MAX_TEXTURES];
static unsigned int texture_count;
static struct sampler samplers[MAX_SAMPLERS];
static unsigned int sampler_count;

static void die(const char *fmt, ...)
{
    va_list args;

    fflush(stdout);
    va_start(args, fmt);
    fputs("vkd3d-draw: ", stderr);
    vfprintf(stderr, fmt, args);
    fputc('\n', stderr);
    va_end(args);
    exit(1);
}

#define CHECK(hr, what) do { HRESULT hr_ = (hr); if (FAILED(hr_)) die("%s failed, hr %#x", what, (unsigned int)hr_); } while (0)

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* CPU time (user + system) of the whole process, ms: lavapipe's rasterizer
 * threads included. */
static double cpu_ms(void)
{
    struct rusage u;

    if (getrusage(RUSAGE_SELF, &u))
        return 0.0;
    return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static double median(double *v, unsigned int n)
{
    qsort(v, n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

static uint8_t *read_file(const char *path, uint64_t *size)
{
    FILE *f = fopen(path, "rb");
    uint8_t *data;
    long len;

    if (!f)
        die("cannot open %s: %s", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (len < 0 || !(data = malloc(len ? len : 1)))
        die("cannot read %s", path);
    if (len && fread(data, 1, len, f) != (size_t)len)
        die("cannot read %s", path);
    fclose(f);
    *size = len;
    return data;
}

static unsigned int number(const char *s, const char *what)
{
    char *end;
    unsigned long v = strtoul(s, &end, 0);

    if (end == s || *end || v > 0xffffffffu)
        die("bad number '%s' in %s", s, what);
    return (unsigned int)v;
}

/* Splits "a:b:c" into at most n fields (the last keeps any further ':'). */
static unsigned int fields(char *s, char **out, unsigned int n)
{
    unsigned int i = 0;

    while (i < n)
    {
        out[i++] = s;
        if (i == n || !(s = strchr(s, ':')))
            break;
        *s++ = 0;
    }
    return i;
}

static unsigned int bytes_per_texel(unsigned int format)
{
    switch (format)
    {
        case DXGI_FORMAT_R32G32B32A32_FLOAT: return 16;
        case DXGI_FORMAT_R8G8B8A8_UNORM: return 4;
        case DXGI_FORMAT_R32_FLOAT: return 4;
        default: die("unsupported DXGI format %u", format);
    }
    return 0;
}

static void parse_texture(const char *arg)
{
    char *copy = strdup(arg), *f[6];
    struct texture *t;
    uint64_t want = 0, w, h;
    unsigned int i;

    if (texture_count == MAX_TEXTURES)
        die("too many textures");
    t = &textures[texture_count];
    if (!strncmp(copy, "depth:", 6))
    {
        t->depth = true;
        memmove(copy, copy + 6, strlen(copy + 6) + 1);
    }
    if (fields(copy, f, 6) != 6 || f[0][0] != 't')
        die("bad --texture '%s' (want [depth:]tN:DXGI:W:H:MIPS:FILE)", arg);
    t->slot = number(f[0] + 1, arg);
    if (t->slot != texture_count)
        die("--texture: give t0, t1, ... in order (got t%u)", t->slot);
    t->format = number(f[1], arg);
    if (t->depth && t->format != DXGI_FORMAT_R32_FLOAT)
        die("--texture '%s': depth: needs R32_FLOAT (41)", arg);
    t->width = number(f[2], arg);
    t->height = number(f[3], arg);
    t->mips = number(f[4], arg);
    if (!t->width || !t->height || !t->mips || t->width > 16384 || t->height > 16384 || t->mips > 15)
        die("--texture '%s': bad size or mip count", arg);
    t->data = read_file(f[5], &t->size);
    for (i = 0, w = t->width, h = t->height; i < t->mips; ++i)
    {
        want += w * h * bytes_per_texel(t->format);
        w = w > 1 ? w / 2 : 1;
        h = h > 1 ? h / 2 : 1;
    }
    if (t->size != want)
        die("%s: %" PRIu64 " bytes, the texture needs %" PRIu64, f[5], t->size, want);
    ++texture_count;
    free(copy);
}

static void parse_sampler(const char *arg)
{
    char *copy = strdup(arg), *f[6];
    struct sampler *s;

    if (sampler_count == MAX_SAMPLERS)
        die("too many samplers");
    s = &samplers[sampler_count++];
    if (fields(copy, f, 6) != 6 || f[0][0] != 's')
        die("bad --sampler '%s' (want sN:FILTER:AU:AV:AW:CMP)", arg);
    s->slot = number(f[0] + 1, arg);
    s->filter = number(f[1], arg);
    s->address[0] = number(f[2], arg);
    s->address[1] = number(f[3], arg);
    s->address[2] = number(f[4], arg);
    s->comparison = number(f[5], arg);
    free(copy);
}

static ID3D12Resource *create_buffer(ID3D12Device *device, D3D12_HEAP_TYPE type, uint64_t size,
        D3D12_RESOURCE_STATES state)
{
    D3D12_HEAP_PROPERTIES heap = {0};
    D3D12_RESOURCE_DESC desc = {0};
    ID3D12Resource *res;

    heap.Type = type;
    desc.Dimension = D3D12_RESOURCE_DIMENSION_BUFFER;
    desc.Width = size;
    desc.Height = 1;
    desc.DepthOrArraySize = 1;
    desc.MipLevels = 1;
    desc.Format = DXGI_FORMAT_UNKNOWN;
    desc.SampleDesc.Count = 1;
    desc.Layout = D3D12_TEXTURE_LAYOUT_ROW_MAJOR;
    CHECK(ID3D12Device_CreateCommittedResource(device, &heap, D3D12_HEAP_FLAG_NONE, &desc, state,
            NULL, &IID_ID3D12Resource, (void **)&res), "CreateCommittedResource (buffer)");
    return res;
}

static D3D12_RESOURCE_DESC texture_desc(unsigned int format, unsigned int width, unsigned int height,
        unsigned int mips, D3D12_RESOURCE_FLAGS flags)
{
    D3D12_RESOURCE_DESC desc = {0};

    desc.Dimension = D3D12_RESOURCE_DIMENSION_TEXTURE2D;
    desc.Width = width;
    desc.Height = height;
    desc.DepthOrArraySize = 1;
    desc.MipLevels = mips;
    desc.Format = format;
    desc.SampleDesc.Count = 1;
    desc.Layout = D3D12_TEXTURE_LAYOUT_UNKNOWN;
    desc.Flags = flags;
    return desc;
}

static void transition(ID3D12GraphicsCommandList *list, ID3D12Resource *res,
        D3D12_RESOURCE_STATES before, D3D12_RESOURCE_STATES after)
{
    D3D12_RESOURCE_BARRIER barrier = {0};

    barrier.Type = D3D12_RESOURCE_BARRIER_TYPE_TRANSITION;
    barrier.Transition.pResource = res;
    barrier.Transition.Subresource = D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES;
    barrier.Transition.StateBefore = before;
    barrier.Transition.StateAfter = after;
    ID3D12GraphicsCommandList_ResourceBarrier(list, 1, &barrier);
}

struct ctx
{
    ID3D12Device *device;
    ID3D12CommandQueue *queue;
    ID3D12Fence *fence;
    UINT64 fence_value;
    HANDLE event;
};

static void new_list(struct ctx *c, ID3D12CommandAllocator **alloc, ID3D12GraphicsCommandList **list)
{
    CHECK(ID3D12Device_CreateCommandAllocator(c->device, D3D12_COMMAND_LIST_TYPE_DIRECT,
            &IID_ID3D12CommandAllocator, (void **)alloc), "CreateCommandAllocator");
    CHECK(ID3D12Device_CreateCommandList(c->device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, *alloc, NULL,
            &IID_ID3D12GraphicsCommandList, (void **)list), "CreateCommandList");
}

/* Executes and waits; wall milliseconds from submission to the fence. */
static double run_list(struct ctx *c, ID3D12GraphicsCommandList *list)
{
    ID3D12CommandList *lists[] = {(ID3D12CommandList *)list};
    double t0 = now_ms();

    ID3D12CommandQueue_ExecuteCommandLists(c->queue, 1, lists);
    CHECK(ID3D12CommandQueue_Signal(c->queue, c->fence, ++c->fence_value), "Signal");
    if (ID3D12Fence_GetCompletedValue(c->fence) < c->fence_value)
    {
        CHECK(ID3D12Fence_SetEventOnCompletion(c->fence, c->fence_value, c->event), "SetEventOnCompletion");
        if (vkd3d_wait_event(c->event, VKD3D_INFINITE) != VKD3D_WAIT_OBJECT_0)
            die("wait failed");
    }
    return now_ms() - t0;
}

/* Uploads every mip of t through GetCopyableFootprints layouts. */
static void upload_texture(struct ctx *c, ID3D12GraphicsCommandList *list, struct texture *t)
{
    D3D12_PLACED_SUBRESOURCE_FOOTPRINT layouts[16];
    UINT rows[16];
    UINT64 row_bytes[16], total, src = 0;
    D3D12_RESOURCE_DESC desc = t->depth
            ? texture_desc(DXGI_FORMAT_R32_TYPELESS, t->width, t->height, t->mips,
                    D3D12_RESOURCE_FLAG_ALLOW_DEPTH_STENCIL)
            : texture_desc(t->format, t->width, t->height, t->mips, D3D12_RESOURCE_FLAG_NONE);
    D3D12_HEAP_PROPERTIES heap = {0};
    D3D12_TEXTURE_COPY_LOCATION dst_loc, src_loc;
    unsigned int m, r;
    uint8_t *ptr;

    heap.Type = D3D12_HEAP_TYPE_DEFAULT;
    CHECK(ID3D12Device_CreateCommittedResource(c->device, &heap, D3D12_HEAP_FLAG_NONE, &desc,
            D3D12_RESOURCE_STATE_COPY_DEST, NULL, &IID_ID3D12Resource, (void **)&t->resource),
            "CreateCommittedResource (texture)");
    ID3D12Device_GetCopyableFootprints(c->device, &desc, 0, t->mips, 0, layouts, rows, row_bytes, &total);
    t->upload = create_buffer(c->device, D3D12_HEAP_TYPE_UPLOAD, total, D3D12_RESOURCE_STATE_GENERIC_READ);
    CHECK(ID3D12Resource_Map(t->upload, 0, NULL, (void **)&ptr), "Map");
    for (m = 0; m < t->mips; ++m)
    {
        for (r = 0; r < rows[m]; ++r)
        {
            memcpy(ptr + layouts[m].Offset + (uint64_t)r * layouts[m].Footprint.RowPitch,
                    t->data + src, row_bytes[m]);
            src += row_bytes[m];
        }
    }
    ID3D12Resource_Unmap(t->upload, 0, NULL);
    for (m = 0; m < t->mips; ++m)
    {
        dst_loc.pResource = t->resource;
        dst_loc.Type = D3D12_TEXTURE_COPY_TYPE_SUBRESOURCE_INDEX;
        dst_loc.SubresourceIndex = m;
        src_loc.pResource = t->upload;
        src_loc.Type = D3D12_TEXTURE_COPY_TYPE_PLACED_FOOTPRINT;
        src_loc.PlacedFootprint = layouts[m];
        ID3D12GraphicsCommandList_CopyTextureRegion(list, &dst_loc, 0, 0, 0, &src_loc, NULL);
    }
    transition(list, t->resource, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_PIXEL_SHADER_RESOURCE);
}

static void usage(void)
{
    fputs("usage: vkd3d-draw --size W H --vs VS.dxbc --ps PS.dxbc --rt-format DXGI\n"
          "         [--texture [depth:]tN:DXGI:W:H:MIPS:FILE]... [--sampler sN:FILTER:AU:AV:AW:CMP]...\n"
          "         [--cbv b0:FILE] [--out FILE] [--iters N]\n", stderr);
    exit(2);
}

int main(int argc, char **argv)
{
    unsigned int width = 0, height = 0, rt_format = 0, iters = 10, i;
    const char *vs_path = NULL, *ps_path = NULL, *cb_path = NULL, *out_path = NULL;
    uint8_t *vs, *ps, *cb = NULL, *ptr;
    uint64_t vs_size, ps_size, cb_size = 0, *ts;
    struct ctx c = {0};
    D3D12_COMMAND_QUEUE_DESC queue_desc = {0};
    D3D12_ROOT_PARAMETER params[2];
    D3D12_DESCRIPTOR_RANGE range = {0};
    D3D12_STATIC_SAMPLER_DESC static_samplers[MAX_SAMPLERS];
    D3D12_ROOT_SIGNATURE_DESC rs_desc = {0};
    D3D12_GRAPHICS_PIPELINE_STATE_DESC pso_desc = {0};
    D3D12_DESCRIPTOR_HEAP_DESC heap_desc = {0};
    D3D12_SHADER_RESOURCE_VIEW_DESC srv = {0};
    D3D12_HEAP_PROPERTIES heap = {0};
    D3D12_RESOURCE_DESC rt_desc;
    D3D12_CLEAR_VALUE clear = {0};
    D3D12_VIEWPORT viewport = {0};
    D3D12_RECT scissor = {0};
    D3D12_QUERY_HEAP_DESC qh_desc = {0};
    D3D12_PLACED_SUBRESOURCE_FOOTPRINT rt_layout;
    D3D12_TEXTURE_COPY_LOCATION dst_loc, src_loc;
    D3D12_CPU_DESCRIPTOR_HANDLE rtv, srv_cpu;
    D3D12_GPU_DESCRIPTOR_HANDLE srv_gpu = {0};
    UINT rt_rows, srv_step = 0, param_count = 0, root_cb = 0;
    UINT64 rt_row_bytes, rt_total, ts_freq;
    ID3D12RootSignature *root_signature;
    ID3D12PipelineState *pso;
    ID3D12DescriptorHeap *srv_heap = NULL, *rtv_heap;
    ID3D12Resource *rt, *cb_buffer = NULL, *readback, *ts_readback;
    ID3D12QueryHeap *query_heap;
    ID3D12CommandAllocator *alloc_init, *alloc_draw, *alloc_rb;
    ID3D12GraphicsCommandList *list_init, *list_draw, *list_rb;
    ID3D10Blob *blob = NULL, *error_blob = NULL;
    PFN_vkGetPhysicalDeviceProperties get_props;
    VkPhysicalDeviceProperties props;
    double t0, compile_ms, first_ms, *wall, *gpu, *cpu, c0;
    const char *env;

    for (i = 1; i < (unsigned int)argc; ++i)
    {
        const char *a = argv[i];
#define NEXT() (i + 1 < (unsigned int)argc ? argv[++i] : (usage(), (char *)NULL))
        if (!strcmp(a, "--size"))
        {
            width = number(NEXT(), "--size");
            height = number(NEXT(), "--size");
        }
        else if (!strcmp(a, "--vs")) vs_path = NEXT();
        else if (!strcmp(a, "--ps")) ps_path = NEXT();
        else if (!strcmp(a, "--rt-format")) rt_format = number(NEXT(), "--rt-format");
        else if (!strcmp(a, "--texture")) parse_texture(NEXT());
        else if (!strcmp(a, "--sampler")) parse_sampler(NEXT());
        else if (!strcmp(a, "--cbv"))
        {
            const char *v = NEXT();
            if (strncmp(v, "b0:", 3))
                die("--cbv: only b0 (b0:FILE)");
            cb_path = v + 3;
        }
        else if (!strcmp(a, "--out")) out_path = NEXT();
        else if (!strcmp(a, "--iters")) iters = number(NEXT(), "--iters");
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) usage();
        else die("unknown argument %s", a);
#undef NEXT
    }
    if (!width || !height || width > 16384 || height > 16384 || !vs_path || !ps_path || !rt_format)
        usage();
    bytes_per_texel(rt_format);

    setvbuf(stdout, NULL, _IOLBF, 0);
    setenv("VK_ICD_FILENAMES", LVP_ICD, 0);
    setenv("VKD3D_SHADER_DEBUG", "none", 0);
    setenv("MESA_SHADER_CACHE_DISABLE", "true", 0);

    vs = read_file(vs_path, &vs_size);
    ps = read_file(ps_path, &ps_size);
    if (vs_size < 32 || memcmp(vs, "DXBC", 4) || ps_size < 32 || memcmp(ps, "DXBC", 4))
        die("--vs and --ps must be DXBC containers");
    if (cb_path)
    {
        uint64_t padded;
        cb = read_file(cb_path, &cb_size);
        padded = (cb_size + 255) & ~(uint64_t)255;
        cb = realloc(cb, padded ? padded : 256);
        memset(cb + cb_size, 0, (padded ? padded : 256) - cb_size);
        cb_size = padded ? padded : 256;
    }

    CHECK(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&c.device),
            "D3D12CreateDevice");
    get_props = (PFN_vkGetPhysicalDeviceProperties)vkGetInstanceProcAddr(
            vkd3d_instance_get_vk_instance(vkd3d_instance_from_device(c.device)), "vkGetPhysicalDeviceProperties");
    get_props(vkd3d_get_vk_physical_device(c.device), &props);
    printf("device %s\n", props.deviceName);
    printf("lp_num_threads %s\n", (env = getenv("LP_NUM_THREADS")) ? env : "default");
    if (!strstr(props.deviceName, "llvmpipe"))
        fprintf(stderr, "vkd3d-draw: warning: device is not lavapipe\n");
    queue_desc.Type = D3D12_COMMAND_LIST_TYPE_DIRECT;
    CHECK(ID3D12Device_CreateCommandQueue(c.device, &queue_desc, &IID_ID3D12CommandQueue, (void **)&c.queue),
            "CreateCommandQueue");
    CHECK(ID3D12Device_CreateFence(c.device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&c.fence),
            "CreateFence");
    c.event = vkd3d_create_event();

    /* Root signature: [SRV table t0..tN-1] [root CBV b0], static samplers. */
    memset(params, 0, sizeof(params));
    if (texture_count)
    {
        range.RangeType = D3D12_DESCRIPTOR_RANGE_TYPE_SRV;
        range.NumDescriptors = texture_count;
        range.BaseShaderRegister = 0;
        params[param_count].ParameterType = D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE;
        params[param_count].DescriptorTable.NumDescriptorRanges = 1;
        params[param_count].DescriptorTable.pDescriptorRanges = &range;
        params[param_count].ShaderVisibility = D3D12_SHADER_VISIBILITY_PIXEL;
        ++param_count;
    }
    if (cb)
    {
        root_cb = param_count;
        params[param_count].ParameterType = D3D12_ROOT_PARAMETER_TYPE_CBV;
        params[param_count].Descriptor.ShaderRegister = 0;
        params[param_count].ShaderVisibility = D3D12_SHADER_VISIBILITY_PIXEL;
        ++param_count;
    }
    memset(static_samplers, 0, sizeof(static_samplers));
    for (i = 0; i < sampler_count; ++i)
    {
        D3D12_STATIC_SAMPLER_DESC *s = &static_samplers[i];
        s->Filter = samplers[i].filter;
        s->AddressU = samplers[i].address[0];
        s->AddressV = samplers[i].address[1];
        s->AddressW = samplers[i].address[2];
        s->ComparisonFunc = samplers[i].comparison;
        s->MaxAnisotropy = 1;
        s->MinLOD = 0.0f;
        s->MaxLOD = 1000.0f;
        s->BorderColor = D3D12_STATIC_BORDER_COLOR_OPAQUE_WHITE;
        s->ShaderRegister = samplers[i].slot;
        s->ShaderVisibility = D3D12_SHADER_VISIBILITY_PIXEL;
    }
    rs_desc.NumParameters = param_count;
    rs_desc.pParameters = params;
    rs_desc.NumStaticSamplers = sampler_count;
    rs_desc.pStaticSamplers = static_samplers;
    if (FAILED(D3D12SerializeRootSignature(&rs_desc, D3D_ROOT_SIGNATURE_VERSION_1_0, &blob, &error_blob)))
        die("D3D12SerializeRootSignature failed: %s",
                error_blob ? (const char *)ID3D10Blob_GetBufferPointer(error_blob) : "?");
    CHECK(ID3D12Device_CreateRootSignature(c.device, 0, ID3D10Blob_GetBufferPointer(blob),
            ID3D10Blob_GetBufferSize(blob), &IID_ID3D12RootSignature, (void **)&root_signature),
            "CreateRootSignature");
    ID3D10Blob_Release(blob);

    /* Textures, their SRVs, the constant buffer. */
    new_list(&c, &alloc_init, &list_init);
    for (i = 0; i < texture_count; ++i)
        upload_texture(&c, list_init, &textures[i]);
    CHECK(ID3D12GraphicsCommandList_Close(list_init), "Close");
    run_list(&c, list_init);
    if (texture_count)
    {
        heap_desc.Type = D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV;
        heap_desc.NumDescriptors = texture_count;
        heap_desc.Flags = D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE;
        CHECK(ID3D12Device_CreateDescriptorHeap(c.device, &heap_desc, &IID_ID3D12DescriptorHeap,
                (void **)&srv_heap), "CreateDescriptorHeap (SRV)");
        srv_step = ID3D12Device_GetDescriptorHandleIncrementSize(c.device, D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV);
        srv_cpu = ID3D12DescriptorHeap_GetCPUDescriptorHandleForHeapStart(srv_heap);
        srv_gpu = ID3D12DescriptorHeap_GetGPUDescriptorHandleForHeapStart(srv_heap);
        for (i = 0; i < texture_count; ++i)
        {
            D3D12_CPU_DESCRIPTOR_HANDLE h = srv_cpu;
            h.ptr += (SIZE_T)i * srv_step;
            srv.Format = textures[i].format;
            srv.ViewDimension = D3D12_SRV_DIMENSION_TEXTURE2D;
            srv.Shader4ComponentMapping = D3D12_DEFAULT_SHADER_4_COMPONENT_MAPPING;
            srv.Texture2D.MipLevels = textures[i].mips;
            ID3D12Device_CreateShaderResourceView(c.device, textures[i].resource, &srv, h);
        }
    }
    if (cb)
    {
        cb_buffer = create_buffer(c.device, D3D12_HEAP_TYPE_UPLOAD, cb_size, D3D12_RESOURCE_STATE_GENERIC_READ);
        CHECK(ID3D12Resource_Map(cb_buffer, 0, NULL, (void **)&ptr), "Map");
        memcpy(ptr, cb, cb_size);
        ID3D12Resource_Unmap(cb_buffer, 0, NULL);
    }

    /* The render target. */
    heap.Type = D3D12_HEAP_TYPE_DEFAULT;
    rt_desc = texture_desc(rt_format, width, height, 1, D3D12_RESOURCE_FLAG_ALLOW_RENDER_TARGET);
    clear.Format = rt_format;
    CHECK(ID3D12Device_CreateCommittedResource(c.device, &heap, D3D12_HEAP_FLAG_NONE, &rt_desc,
            D3D12_RESOURCE_STATE_RENDER_TARGET, &clear, &IID_ID3D12Resource, (void **)&rt),
            "CreateCommittedResource (render target)");
    heap_desc.Type = D3D12_DESCRIPTOR_HEAP_TYPE_RTV;
    heap_desc.NumDescriptors = 1;
    heap_desc.Flags = D3D12_DESCRIPTOR_HEAP_FLAG_NONE;
    CHECK(ID3D12Device_CreateDescriptorHeap(c.device, &heap_desc, &IID_ID3D12DescriptorHeap,
            (void **)&rtv_heap), "CreateDescriptorHeap (RTV)");
    rtv = ID3D12DescriptorHeap_GetCPUDescriptorHandleForHeapStart(rtv_heap);
    ID3D12Device_CreateRenderTargetView(c.device, rt, NULL, rtv);

    /* The pipeline (timed). */
    pso_desc.pRootSignature = root_signature;
    pso_desc.VS.pShaderBytecode = vs;
    pso_desc.VS.BytecodeLength = vs_size;
    pso_desc.PS.pShaderBytecode = ps;
    pso_desc.PS.BytecodeLength = ps_size;
    pso_desc.BlendState.RenderTarget[0].RenderTargetWriteMask = D3D12_COLOR_WRITE_ENABLE_ALL;
    pso_desc.SampleMask = ~0u;
    pso_desc.RasterizerState.FillMode = D3D12_FILL_MODE_SOLID;
    pso_desc.RasterizerState.CullMode = D3D12_CULL_MODE_NONE;
    pso_desc.RasterizerState.DepthClipEnable = TRUE;
    pso_desc.PrimitiveTopologyType = D3D12_PRIMITIVE_TOPOLOGY_TYPE_TRIANGLE;
    pso_desc.NumRenderTargets = 1;
    pso_desc.RTVFormats[0] = rt_format;
    pso_desc.SampleDesc.Count = 1;
    t0 = now_ms();
    if (FAILED(ID3D12Device_CreateGraphicsPipelineState(c.device, &pso_desc, &IID_ID3D12PipelineState,
            (void **)&pso)))
        die("CreateGraphicsPipelineState failed (rerun with VKD3D_DEBUG=warn for vkd3d's reason)");
    compile_ms = now_ms() - t0;
    printf("compile_ms %.3f\n", compile_ms);

    /* One pre-recorded draw: [ts] DrawInstanced(3, 1) [ts], resolved to ts_readback. */
    qh_desc.Type = D3D12_QUERY_HEAP_TYPE_TIMESTAMP;
    qh_desc.Count = 2;
    CHECK(ID3D12Device_CreateQueryHeap(c.device, &qh_desc, &IID_ID3D12QueryHeap, (void **)&query_heap),
            "CreateQueryHeap");
    ts_readback = create_buffer(c.device, D3D12_HEAP_TYPE_READBACK, 256, D3D12_RESOURCE_STATE_COPY_DEST);
    CHECK(ID3D12CommandQueue_GetTimestampFrequency(c.queue, &ts_freq), "GetTimestampFrequency");
    viewport.Width = (float)width;
    viewport.Height = (float)height;
    viewport.MaxDepth = 1.0f;
    scissor.right = width;
    scissor.bottom = height;
    new_list(&c, &alloc_draw, &list_draw);
    ID3D12GraphicsCommandList_SetGraphicsRootSignature(list_draw, root_signature);
    ID3D12GraphicsCommandList_SetPipelineState(list_draw, pso);
    if (srv_heap)
    {
        ID3D12GraphicsCommandList_SetDescriptorHeaps(list_draw, 1, &srv_heap);
        ID3D12GraphicsCommandList_SetGraphicsRootDescriptorTable(list_draw, 0, srv_gpu);
    }
    if (cb_buffer)
        ID3D12GraphicsCommandList_SetGraphicsRootConstantBufferView(list_draw, root_cb,
                ID3D12Resource_GetGPUVirtualAddress(cb_buffer));
    ID3D12GraphicsCommandList_RSSetViewports(list_draw, 1, &viewport);
    ID3D12GraphicsCommandList_RSSetScissorRects(list_draw, 1, &scissor);
    ID3D12GraphicsCommandList_OMSetRenderTargets(list_draw, 1, &rtv, FALSE, NULL);
    ID3D12GraphicsCommandList_IASetPrimitiveTopology(list_draw, D3D_PRIMITIVE_TOPOLOGY_TRIANGLELIST);
    ID3D12GraphicsCommandList_EndQuery(list_draw, query_heap, D3D12_QUERY_TYPE_TIMESTAMP, 0);
    ID3D12GraphicsCommandList_DrawInstanced(list_draw, 3, 1, 0, 0);
    ID3D12GraphicsCommandList_EndQuery(list_draw, query_heap, D3D12_QUERY_TYPE_TIMESTAMP, 1);
    ID3D12GraphicsCommandList_ResolveQueryData(list_draw, query_heap, D3D12_QUERY_TYPE_TIMESTAMP, 0, 2,
            ts_readback, 0);
    CHECK(ID3D12GraphicsCommandList_Close(list_draw), "Close");

    /* First draw: lavapipe compiles with LLVM here; it is also the image we check. */
    first_ms = run_list(&c, list_draw);
    printf("first_draw_ms %.3f\n", first_ms);

    if (out_path)
    {
        FILE *f;
        unsigned int y, bpp = bytes_per_texel(rt_format);

        ID3D12Device_GetCopyableFootprints(c.device, &rt_desc, 0, 1, 0, &rt_layout, &rt_rows, &rt_row_bytes,
                &rt_total);
        readback = create_buffer(c.device, D3D12_HEAP_TYPE_READBACK, rt_total, D3D12_RESOURCE_STATE_COPY_DEST);
        new_list(&c, &alloc_rb, &list_rb);
        transition(list_rb, rt, D3D12_RESOURCE_STATE_RENDER_TARGET, D3D12_RESOURCE_STATE_COPY_SOURCE);
        dst_loc.pResource = readback;
        dst_loc.Type = D3D12_TEXTURE_COPY_TYPE_PLACED_FOOTPRINT;
        dst_loc.PlacedFootprint = rt_layout;
        src_loc.pResource = rt;
        src_loc.Type = D3D12_TEXTURE_COPY_TYPE_SUBRESOURCE_INDEX;
        src_loc.SubresourceIndex = 0;
        ID3D12GraphicsCommandList_CopyTextureRegion(list_rb, &dst_loc, 0, 0, 0, &src_loc, NULL);
        transition(list_rb, rt, D3D12_RESOURCE_STATE_COPY_SOURCE, D3D12_RESOURCE_STATE_RENDER_TARGET);
        CHECK(ID3D12GraphicsCommandList_Close(list_rb), "Close");
        run_list(&c, list_rb);
        CHECK(ID3D12Resource_Map(readback, 0, NULL, (void **)&ptr), "Map");
        if (!(f = fopen(out_path, "wb")))
            die("cannot write %s", out_path);
        for (y = 0; y < height; ++y)
        {
            if (fwrite(ptr + rt_layout.Offset + (uint64_t)y * rt_layout.Footprint.RowPitch, 1,
                    (size_t)width * bpp, f) != (size_t)width * bpp)
                die("cannot write %s", out_path);
        }
        if (fclose(f))
            die("cannot write %s", out_path);
        ID3D12Resource_Unmap(readback, 0, NULL);
    }

    if (!(wall = calloc(iters + 1, sizeof(*wall))) || !(gpu = calloc(iters + 1, sizeof(*gpu)))
            || !(cpu = calloc(iters + 1, sizeof(*cpu))))
        die("out of memory");
    for (i = 0; i < iters; ++i)
    {
        c0 = cpu_ms();
        wall[i] = run_list(&c, list_draw);
        cpu[i] = cpu_ms() - c0;
        CHECK(ID3D12Resource_Map(ts_readback, 0, NULL, (void **)&ts), "Map");
        gpu[i] = (double)(ts[1] - ts[0]) * 1e3 / (double)ts_freq;
        ID3D12Resource_Unmap(ts_readback, 0, NULL);
    }
    printf("size %u %u\n", width, height);
    printf("iters %u\n", iters);
    if (iters)
    {
        double wall_med = median(wall, iters), gpu_med = median(gpu, iters);

        printf("draw_ms_median %.4f\n", wall_med);
        printf("gpu_ms_median %.4f\n", gpu_med);
        printf("gpu_ms_min %.4f\n", gpu[0]);
        printf("cpu_ms_median %.4f\n", median(cpu, iters));
        printf("pixels_per_s %.4e\n", gpu_med > 0 ? (double)width * height / (gpu_med / 1e3) : 0.0);
    }
    /* The process exits here; the driver frees what is left. */
    return 0;
}
