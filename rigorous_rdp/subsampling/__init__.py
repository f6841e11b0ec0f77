"""Privacy amplification by subsampling: certified RDP bounds."""
