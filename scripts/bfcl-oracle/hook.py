import sys, types, importlib.abc, importlib.machinery
MISSING = {'openai','anthropic','mistralai','cohere','google','qwen_agent','writerai','datamodel_code_generator','overrides','tree_sitter','tree_sitter_java','tree_sitter_javascript','rank_bm25','sentence_transformers','serpapi','faiss','dotenv'} - set()
class Any(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith('__'): raise AttributeError(name)
        if name in ('final','override'): return lambda f: f
        m = Any(self.__name__+'.'+name); m.__path__=[]; return m
    def __call__(self,*a,**k): return self
    def __mro_entries__(self, bases): return (object,)
class Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name.split('.')[0] in MISSING and name.split('.')[0] not in STUBS:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
    def create_module(self, spec):
        m = Any(spec.name); m.__path__=[]; return m
    def exec_module(self, m): pass
STUBS=set()
try:
    import dotenv
    MISSING.discard('dotenv')
except Exception: pass
sys.meta_path.insert(0, Finder())
